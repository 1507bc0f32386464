// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// The keys a converted machine needs (DESIGN §3, issue 26): parsed into typed values, errors
/// with file:line naming what is valid.
struct NewJobKeysTests {
    @Test func repeatedExecLinesAreTheRunsCommandsInOrderAndDashMayFail() throws {
        let text = "[Job]\nIdentifier=com.example.t\nExec=-/usr/lib/agentd/plugins/pre a\n"
            + "Exec=/usr/lib/agentd/plugins/main\nExec=/usr/lib/agentd/plugins/post $ARGS\n"
        let result = parseJob(text)
        let job = try #require(result.value, "\(printed(result.diagnostics))")
        #expect(job.exec == ["/usr/lib/agentd/plugins/pre", "a"])
        #expect(job.commands == [
            ExecCommand(argv: ["/usr/lib/agentd/plugins/pre", "a"], mayFail: true),
            ExecCommand(argv: ["/usr/lib/agentd/plugins/main"]),
            ExecCommand(argv: ["/usr/lib/agentd/plugins/post", "$ARGS"]),
        ])
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test func anEmptyExecEmptiesTheListAsInSystemd() throws {
        let job = try #require(parseJob("[Job]\nIdentifier=com.example.t\nExec=/usr/lib/agentd/plugins/a\nExec=\n"
            + "Exec=/usr/lib/agentd/plugins/b\n").value)
        #expect(job.commands == [ExecCommand(argv: ["/usr/lib/agentd/plugins/b"])])
    }

    @Test func aJobWithOneExecSharesTheDefaultExtraSettings() throws {
        let job = try #require(parseJob(jobText()).value)
        #expect(job.rareBox.settings.extra === JobDefinition.ExtraBox.defaults)
    }

    @Test func workingDirectoryIsAbsoluteOrHome() throws {
        #expect(try #require(parseJob(jobText("com.example.t", "WorkingDirectory=~\n")).value).extra.workingDirectory == "~")
        let bad = parseJob(jobText("com.example.t", "WorkingDirectory=srv\n"))
        #expect(bad.value == nil)
        #expect(printed(bad.diagnostics).contains {
            $0.hasPrefix("jobs.d/test.job:4: WorkingDirectory: \"srv\" is not an absolute path or ~") })
    }

    @Test func environmentFileKeepsSystemdsDashPrefix() throws {
        let job = try #require(parseJob(jobText("com.example.t", "EnvironmentFile=-/etc/default/a /etc/b\n")).value)
        #expect(job.extra.environmentFiles == [
            EnvironmentFileReference(path: "/etc/default/a", mayBeMissing: true),
            EnvironmentFileReference(path: "/etc/b"),
        ])
    }

    @Test func successExitStatusTakesNumbersAndSignals() throws {
        let job = try #require(parseJob(jobText("com.example.t", "SuccessExitStatus=2 SIGHUP\n")).value)
        #expect(job.extra.successExitStatus == SuccessExitStatus(statuses: [2], signals: [1]))
        let bad = parseJob(jobText("com.example.t", "SuccessExitStatus=300\n"))
        #expect(printed(bad.diagnostics).contains { $0.contains("test.job:4: SuccessExitStatus: \"300\" is not an exit status") })
    }

    @Test func conditionsKeepTriggerAndNegation() throws {
        let job = try #require(parseJob(jobText("com.example.t",
            "ConditionPathExists=|!/run/a\nConditionVirtualization=!container\nConditionACPower=true\n")).value)
        #expect(job.extra.conditions.contains(UnitCondition(check: .pathExists, argument: "/run/a", negated: true, triggering: true)))
        #expect(job.extra.conditions.contains(UnitCondition(check: .virtualization, argument: "container", negated: true)))
        let bad = parseJob(jobText("com.example.t", "ConditionPathExists=run/a\n"))
        #expect(printed(bad.diagnostics).contains { $0.contains("test.job:4: ConditionPathExists: \"run/a\" is not an absolute path") })
    }

    @Test func sandboxKeysParseIntoTheJobsSandbox() throws {
        let job = try #require(parseJob(jobText("com.example.t", """
            ProtectSystem=strict
            ProtectHome=read-only
            PrivateTmp=yes
            ReadWritePaths=/var/tmp/x -/srv/y
            NoNewPrivileges=yes
            PrivateNetwork=yes

            """)).value)
        var expected = JobSandbox()
        expected.protectSystem = .strict
        expected.protectHome = .readOnly
        expected.privateTmp = true
        expected.readWritePaths = [SandboxPath(path: "/var/tmp/x"), SandboxPath(path: "/srv/y", mayBeMissing: true)]
        expected.noNewPrivileges = true
        expected.privateNetwork = true
        #expect(job.extra.sandbox == expected)
        let bad = parseJob(jobText("com.example.t", "ProtectSystem=everything\n"))
        #expect(printed(bad.diagnostics).contains { $0.contains("ProtectSystem: \"everything\" is not a ProtectSystem= value (yes, full, strict or no)") })
    }

    @Test func afterBootOnFailureAndIdleKeysParse() throws {
        let job = try #require(parseJob(jobText("com.example.t", """
            AfterBoot=15min
            OnFailure=com.example.report
            WakeSystem=yes
            InhibitIdle=no
            IdleFor=5min
            Description=Cleans up

            """)).value)
        #expect(job.extra.afterBoot == .seconds(900))
        #expect(job.extra.onFailure == id("com.example.report"))
        #expect(job.extra.wakeSystem && job.extra.inhibitIdle == false && job.extra.idleFor == .seconds(300))
        #expect(job.extra.description == "Cleans up")
        let selfChain = parseJob(jobText("com.example.t", "OnFailure=com.example.t\n"))
        #expect(printed(selfChain.diagnostics).contains { $0.contains("OnFailure: a job cannot chain to itself") })
    }

    @Test func gracePeriodInfinityIsAcceptedAsSystemdsTimeoutStopSec() throws {
        let job = try #require(parseJob(jobText("com.example.t", "GracePeriod=infinity\n")).value)
        #expect(job.gracePeriod == JobDefinition.never)
    }

    @Test func maxPauseInfinityNeverExpiresAPausedRun() throws {
        let job = try #require(parseJob(jobText("com.example.t", "OnConditionLost=pause\nMaxPause=infinity\n")).value)
        #expect(job.maxPause == JobDefinition.never)
        #expect(try #require(parseJob(jobText("com.example.t", "MaxPause=none\n")).value).maxPause == JobDefinition.never)
        #expect(printed(parseJob(jobText("com.example.t", "MaxPause=forever\n")).diagnostics)
            .contains { $0.contains("MaxPause: \"forever\" is not a time span") })
    }
}

struct ExecExpansionTests {
    let environment = ["ARGS": "  -a  -b ", "DIR": "/var/a b", "EMPTY": ""]

    @Test func aWholeWordDollarVariableSplitsOnWhitespace() {
        #expect(ExecExpansion.expand(["/bin/x", "$ARGS", "$UNSET", "$EMPTY"], environment: environment)
            == ["/bin/x", "-a", "-b"])
    }

    @Test func bracedVariablesStayOneWord() {
        #expect(ExecExpansion.expand(["/bin/x", "${DIR}", "--to=${DIR}/c", "${UNSET}"], environment: environment)
            == ["/bin/x", "/var/a b", "--to=/var/a b/c", ""])
    }

    @Test func doubleDollarIsALiteralDollarAndTheProgramIsNeverExpanded() {
        #expect(ExecExpansion.expand(["/bin/$ARGS", "$$ARGS", "a$ARGS", "$1"], environment: environment)
            == ["/bin/$ARGS", "$ARGS", "a$ARGS", "$1"])
    }
}

struct EnvironmentFileParserTests {
    @Test func readsAssignmentsCommentsQuotesAndExport() {
        let text = "# c\n; c\nA=1\nexport B=\"two words\"\nC='x'\nnot an assignment\nD=con\\\ntinued\nAGENTD_X=1\nA=2\n"
        #expect(EnvironmentFileParser.parse(Array(text.utf8)) == [
            EnvironmentVariable(name: "A", value: "2"), EnvironmentVariable(name: "B", value: "two words"),
            EnvironmentVariable(name: "C", value: "x"), EnvironmentVariable(name: "D", value: "continued"),
        ])
    }
}

struct ConditionVerdictTests {
    struct Facts: ConditionFacts {
        var paths: Set<String> = []
        func pathExists(_ path: String) -> Bool { paths.contains(path) }
        func globMatches(_ pattern: String) -> Bool { paths.contains(pattern) }
        func isDirectory(_ path: String) -> Bool { paths.contains(path) }
        func directoryIsNotEmpty(_ path: String) -> Bool { paths.contains(path) }
        func fileIsNotEmpty(_ path: String) -> Bool { paths.contains(path) }
        func fileIsExecutable(_ path: String) -> Bool { paths.contains(path) }
        var virtualization = Virtualization(kind: .container, name: "docker")
        var onACPower = true
        var capabilityBoundingSet: UInt64 = (1 << 21)  // CAP_SYS_ADMIN only
    }

    func condition(_ check: UnitCondition.Check, _ value: String) -> UnitCondition {
        (try? UnitCondition.parse(check, value).get()) ?? UnitCondition(check: check, argument: "?")
    }

    @Test func everyPlainConditionMustHold() {
        let facts = Facts(paths: ["/a"])
        #expect(ConditionVerdict.evaluate([condition(.pathExists, "/a")], facts: facts) == .holds)
        let missing = condition(.pathExists, "/b")
        #expect(ConditionVerdict.evaluate([condition(.pathExists, "/a"), missing], facts: facts) == .fails(missing))
        #expect(missing.description == "ConditionPathExists=/b")
    }

    @Test func oneTriggeringConditionIsEnough() {
        let facts = Facts(paths: ["/b"])
        #expect(ConditionVerdict.evaluate([condition(.pathExists, "|/a"), condition(.pathExists, "|/b")], facts: facts) == .holds)
        let first = condition(.pathExists, "|/a")
        #expect(ConditionVerdict.evaluate([first, condition(.pathExists, "|/c")], facts: facts) == .fails(first))
    }

    @Test func negationVirtualizationAndPower() {
        let facts = Facts(onACPower: false)
        #expect(condition(.pathExists, "!/a").holds(facts))
        #expect(condition(.virtualization, "container").holds(facts))
        #expect(condition(.virtualization, "docker").holds(facts))
        #expect(!condition(.virtualization, "vm").holds(facts))
        #expect(!condition(.virtualization, "no").holds(facts))
        #expect(!condition(.acPower, "true").holds(facts))
    }

    /// e2scrub_all.service asks ConditionCapability=CAP_SYS_RAWIO, which systemd skips in a
    /// container whose bounding set lacks it; converted, agentd ran it.
    @Test func aCapabilityConditionReadsTheBoundingSet() {
        let facts = Facts()
        #expect(condition(.capability, "CAP_SYS_ADMIN").holds(facts))
        #expect(!condition(.capability, "CAP_SYS_RAWIO").holds(facts))
        #expect(condition(.capability, "!CAP_SYS_RAWIO").holds(facts))
        let bad = UnitCondition.parse(.capability, "CAP_NOPE")
        guard case .failure(let error) = bad else {
            Issue.record("CAP_NOPE parsed")
            return
        }
        #expect(error.message.contains("is not a capability"))
    }
}
