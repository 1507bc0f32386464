// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

struct JobDefinitionTests {
    @Test func readsEveryKey() throws {
        let text = """
            [Job]
            Identifier=com.example.photos.cleanup
            Kind=refresh
            Exec=/usr/lib/agentd/plugins/photos-cleanup --vacuum "two words"
            User=photos
            Interval=1d
            MaxRuntime=45s
            GracePeriod=10s
            RequiresExternalPower=yes
            RequiresNetwork=true
            RequiresIdle=on
            ProgressTimeout=1min
            Resources=gpu
            Retry=exponential 30s 1h
            OnSuccess=com.example.photos.export
            OnConditionLost=pause
            MaxPause=2h
            Environment=A=1 "B=two words"
            Environment=C=3 'D=it''s'

            """
        let result = parseJob(text)
        #expect(result.diagnostics.isEmpty)
        let job = try #require(result.value)
        #expect(job.identifier == id("com.example.photos.cleanup"))
        #expect(job.kind == .refresh)
        #expect(job.exec == ["/usr/lib/agentd/plugins/photos-cleanup", "--vacuum", "two words"])
        #expect(job.user == "photos")
        #expect(job.interval == .seconds(86_400))
        #expect(job.maxRuntime == .seconds(45))
        #expect(job.gracePeriod == .seconds(10))
        #expect(job.requiresExternalPower && job.requiresNetwork && job.requiresIdle)
        #expect(job.progressTimeout == .seconds(60))
        #expect(job.resources == ["gpu"])
        #expect(job.retry == RetryPolicy(shape: .exponential(initial: .seconds(30), cap: .seconds(3600))))
        #expect(job.onSuccess == id("com.example.photos.export"))
        #expect(job.onConditionLost == .pause)
        #expect(job.maxPause == .seconds(7200))
        #expect(job.environment == [
            EnvironmentVariable(name: "A", value: "1"), EnvironmentVariable(name: "B", value: "two words"),
            EnvironmentVariable(name: "C", value: "3"), EnvironmentVariable(name: "D", value: "its"),
        ])
        #expect(!job.isDropInScript)
    }

    @Test func appliesTheDocumentedDefaults() throws {
        let job = try #require(parseJob(jobText()).value)
        #expect(job.kind == .processing)
        #expect(job.user == nil)
        #expect(job.interval == nil)
        #expect(job.maxRuntime == .seconds(600))
        #expect(job.gracePeriod == .seconds(5))
        #expect(!job.requiresExternalPower && !job.requiresNetwork && !job.requiresIdle)
        #expect(job.progressTimeout == .seconds(30))
        #expect(job.resources.isEmpty)
        #expect(job.retry == nil)
        #expect(job.onSuccess == nil)
        #expect(job.onConditionLost == .expire)
        #expect(job.maxPause == .seconds(3600))
        #expect(job.environment.isEmpty)
        #expect(job == JobDefinition(identifier: id("com.example.test"), exec: ["/usr/lib/agentd/plugins/test"]))
    }

    @Test(arguments: [("refresh", Duration?.some(.seconds(30))), ("processing", .seconds(600)), ("continued", nil)])
    func maxRuntimeDefaultsByKind(_ kind: String, _ expected: Duration?) throws {
        #expect(try #require(parseJob(jobText(kind: kind)).value).maxRuntime == expected)
    }

    @Test(arguments: ["none", "infinity", "NONE"])
    func maxRuntimeNoneOrInfinityMeansNoLimit(_ word: String) throws {
        #expect(try #require(parseJob(jobText(kind: "refresh", "MaxRuntime=\(word)\n")).value).maxRuntime == nil)
    }

    @Test func intervalNoneMeansOnlyWhenTriggered() throws {
        #expect(try #require(parseJob(jobText("com.example.test", "Interval=none\n")).value).interval == nil)
    }

    @Test func emptyAssignmentRestoresTheDefault() throws {
        let job = try #require(parseJob(jobText(kind: "refresh", "MaxRuntime=5min\nMaxRuntime=\nUser=photos\nUser=\n")).value)
        #expect(job.maxRuntime == .seconds(30))
        #expect(job.user == nil)
    }

    @Test func lastAssignmentOfAScalarWins() throws {
        #expect(try #require(parseJob(jobText("com.example.test", "Interval=1h\nInterval=2h\n")).value).interval == .seconds(7200))
    }

    @Test func listKeysAppendAndAnEmptyAssignmentResets() throws {
        let job = try #require(parseJob(jobText("com.example.test", "Environment=A=1\nEnvironment=\nEnvironment=B=2 C=3\nEnvironment=B=4\n")).value)
        #expect(job.environment == [EnvironmentVariable(name: "B", value: "4"), EnvironmentVariable(name: "C", value: "3")])
        let resources = try #require(parseJob(jobText("com.example.test", "Resources=gpu\nResources=\n")).value)
        #expect(resources.resources.isEmpty)
    }

    @Test func intervalOnAContinuedJobIsIgnoredWithAWarning() throws {
        let result = parseJob(jobText(kind: "continued", "Interval=1h\n"))
        #expect(try #require(result.value).interval == nil)
        #expect(printed(result.diagnostics) == [
            "jobs.d/test.job:5: warning: Interval: ignored for Kind=continued, which starts only through agentctl submit",
        ])
    }

    /// systemd accepts a timer that never elapses and stays silent; here the file says so.
    /// (`*-02-30`, a day no month has, is already an error.)
    @Test(arguments: ["2100-02-29", "Mon 2026-12-08", "2101..2103-02-29 04:00"])
    func aScheduleThatMatchesNoDateIsAWarningAtItsLine(_ schedule: String) throws {
        let result = parseJob(jobText("com.example.test", "Schedule=\(schedule)\n"))
        #expect(try #require(result.value).schedule != nil)
        #expect(printed(result.diagnostics) == [
            "jobs.d/test.job:4: warning: Schedule: \"\(schedule)\" matches no date (agentctl calendar says \"never\"), "
                + "so it starts nothing: the job runs only when requested, triggered or run; check the day of the "
                + "month, weekday and year",
        ])
    }

    @Test(arguments: ["*-02-29", "Tue 2026-12-08", "*-*~01", "Mon *-02-29 00:00"])
    func aScheduleThatMatchesSomeDateIsNotWarned(_ schedule: String) throws {
        #expect(parseJob(jobText("com.example.test", "Schedule=\(schedule)\n")).diagnostics.isEmpty)
    }

    @Test func unknownKeysAndSectionsAreWarningsWithLineNumbers() throws {
        let result = parseJob("[Job]\nIdentifier=com.example.test\nIntervall=1h\nExec=/usr/lib/agentd/plugins/t\nkind=refresh\n[Timer]\nOnCalendar=daily\n")
        #expect(result.value != nil)
        #expect(printed(result.diagnostics) == [
            "jobs.d/test.job:3: warning: Intervall: unknown key in [Job], ignored (did you mean Interval?)",
            "jobs.d/test.job:5: warning: kind: unknown key in [Job], ignored (did you mean Kind?)",
            "jobs.d/test.job:6: warning: unknown section [Timer], ignored (a job file has one [Job] section)",
        ])
    }

    @Test func aLineThatIsNoAssignmentHidesNeitherTheOtherErrorsNorTheIdentifier() throws {
        let text = "[Job]\nIdentifier=local.typo\nExec=/usr/lib/agentd/plugins/typo\nInterval=1x\nRequiresNetwork yes\nKind=batch\n"
        let (result, lines) = JobDefinition.parseDetailed(Array(text.utf8), path: "jobs.d/typo.job",
                                                          context: privilegedContext, facts: FakeFacts())
        #expect(result.value == nil)
        #expect(result.diagnostics.filter { $0.severity == .error }.map(\.line) == [4, 5, 6])
        #expect(lines.identifierValue?.rawValue == "local.typo", "explain and list name it, with its errors")
    }

    @Test func twentyUnknownKeysAreNamedAndTheRestCountedInOneLine() throws {
        let keys = (0..<25).map { "X-Key\($0)=1\n" }.joined()
        let result = parseJob("[Job]\nIdentifier=com.example.test\nExec=/usr/lib/agentd/plugins/t\n" + keys)
        #expect(result.value != nil)
        let lines = printed(result.diagnostics)
        #expect(lines.count == 21)
        #expect(lines.first == "jobs.d/test.job:4: warning: X-Key0: unknown key in [Job], ignored")
        #expect(lines.last == "jobs.d/test.job:24: warning: 5 more unknown keys in [Job] from here on, ignored")
    }

    @Test func aLaterEnvironmentAssignmentReplacesTheValueInTheFirstPlace() throws {
        let result = parseJob(jobText("com.example.test", "Environment=A=1 B=2\nEnvironment=C=3\nEnvironment=A=4\n"))
        let job = try #require(result.value)
        #expect(job.environment.map { "\($0.name)=\($0.value)" } == ["A=4", "B=2", "C=3"])
    }

    @Test func pinsTheValueErrorFormat() {
        let text = "[Job]\nIdentifier=com.example.backup\nExec=/usr/lib/agentd/plugins/backup\nInterval=1x\nKind=batch\n"
        let result = JobDefinition.parse(Array(text.utf8), path: "jobs.d/backup.job", context: privilegedContext,
                                         facts: FakeFacts())
        #expect(result.value == nil)
        #expect(printed(result.diagnostics) == [
            "jobs.d/backup.job:4: Interval: \"1x\" is not a time span (examples: 30s, 5min, 12h, 1d)",
            "jobs.d/backup.job:5: Kind: \"batch\" is not a kind (refresh, processing, continued)",
        ])
    }

    @Test(arguments: [("unmetered", true, true), ("Unmetered", true, true), ("yes", true, false),
                      ("true", true, false), ("on", true, false), ("no", false, false), ("0", false, false)])
    func requiresNetworkTakesUnmeteredBesidesTheBooleans(_ value: String, _ network: Bool, _ unmetered: Bool) throws {
        let job = try #require(parseJob(jobText("com.example.test", "RequiresNetwork=\(value)\n")).value)
        #expect(job.requiresNetwork == network)
        #expect(job.requiresUnmeteredNetwork == unmetered)
    }

    @Test func requiresNetworkDefaultsToNoAndAnUnknownWordNamesTheValidOnes() throws {
        let job = try #require(parseJob(jobText()).value)
        #expect(!job.requiresNetwork && !job.requiresUnmeteredNetwork)
        #expect(printed(parseJob(jobText("com.example.test", "RequiresNetwork=cheap\n")).errors) == [
            "jobs.d/test.job:4: RequiresNetwork: \"cheap\" is not a network requirement "
                + "(yes, no, unmetered; also true, false, on, off, 1, 0)",
        ])
    }

    @Test func reportsEveryErrorOfAFileAtOnce() {
        let result = parseJob("[Job]\nKind=sometimes\nInterval=soon\nRequiresNetwork=perhaps\n")
        #expect(printed(result.errors) == [
            "jobs.d/test.job:1: Identifier= is missing; add Identifier=com.example.NAME to [Job]",
            "jobs.d/test.job:1: Exec= is missing; add Exec=/absolute/path/to/plugin to [Job]",
            "jobs.d/test.job:2: Kind: \"sometimes\" is not a kind (refresh, processing, continued)",
            "jobs.d/test.job:3: Interval: \"soon\" is not a time span (examples: 30s, 5min, 12h, 1d)",
            "jobs.d/test.job:4: RequiresNetwork: \"perhaps\" is not a network requirement (yes, no, unmetered; also true, false, on, off, 1, 0)",
        ])
    }

    @Test func pinsPluginErrors() {
        var facts = FakeFacts()
        facts.plugins["/usr/lib/agentd/plugins/test"] = .present(FileFacts(ownerUID: 0, mode: 0o100644), executable: false)
        #expect(printed(parseJob(jobText(), facts: facts).errors) == [
            "jobs.d/test.job:3: Exec: /usr/lib/agentd/plugins/test is not executable; run chmod +x /usr/lib/agentd/plugins/test",
        ])
        facts.plugins["/usr/lib/agentd/plugins/test"] = .missing
        #expect(printed(parseJob(jobText(), facts: facts).errors) == [
            "jobs.d/test.job:3: Exec: /usr/lib/agentd/plugins/test does not exist; install the plugin or correct the path",
        ])
    }

    @Test func unprivilegedAgentRunsJobsOnlyAsItself() throws {
        let facts = FakeFacts(pluginsPresentByDefault: true)
        let own = parseJob(jobText("com.example.test", "User=alice\n"), context: unprivilegedContext, facts: facts)
        #expect(try #require(own.value).user == "alice")
        let other = parseJob(jobText("com.example.test", "User=photos\n"), context: unprivilegedContext, facts: facts)
        #expect(printed(other.errors) == [
            "jobs.d/test.job:4: User: \"photos\" cannot be used: the agent runs unprivileged as alice and can run "
                + "jobs only as that user; remove User= or run agentd as root",
        ])
    }

    @Test func privilegedAgentNeedsTheUserToExist() {
        #expect(parseJob(jobText("com.example.test", "User=photos\n")).value?.user == "photos")
        #expect(printed(parseJob(jobText("com.example.test", "User=ghost\n")).errors) == [
            "jobs.d/test.job:4: User: \"ghost\" does not exist; create the user or remove User= to run the job as DefaultUser",
        ])
    }

    @Test func pluginsOwnedByTheUnprivilegedAgentAreAccepted() {
        var facts = FakeFacts()
        facts.plugins["/home/alice/bin/sync"] = .present(FileFacts(ownerUID: 1000, mode: 0o100755), executable: true)
        let text = "[Job]\nIdentifier=local.sync\nExec=/home/alice/bin/sync\n"
        #expect(parseJob(text, context: unprivilegedContext, facts: facts).value != nil)
        #expect(parseJob(text, context: privilegedContext, facts: facts).value == nil)
    }
}
