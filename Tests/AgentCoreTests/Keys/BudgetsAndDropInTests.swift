// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Manifests' and agentd.conf's `DailyBudget=infinity`, `Users=`/`Groups=`, the budget
/// warning, drop-in defaults and privileges, identifiers with empty components.
struct BudgetsAndDropInTests {
    @Test func dailyBudgetInfinityMeansNoLimit() throws {
        let manifest = try #require(Manifest.parse(Array("[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=processing\nDailyBudget=infinity\n".utf8),
                                                   path: "manifests.d/local.manifest").value)
        #expect(manifest.dailyBudget == AgentSettings.unlimitedDailyBudget)
        let settings = AgentSettings.parse(Array("[Agent]\nDailyBudget=infinity\n".utf8), path: "agentd.conf",
                                           context: privilegedContext, facts: FakeFacts())
        #expect(settings.value?.dailyBudget == AgentSettings.unlimitedDailyBudget)
    }

    @Test func manifestUsersAndGroupsAreReadWithoutANotEnforcedWarning() throws {
        let result = Manifest.parse(Array("[Manifest]\nPermittedIdentifiers=a.b\nBackgroundModes=refresh\nUsers=alice bob\nGroups=staff\n".utf8),
                                    path: "manifests.d/a.manifest")
        let manifest = try #require(result.value)
        #expect(manifest.users == ["alice", "bob"] && manifest.groups == ["staff"])
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    }

    /// A typo in `Users=`/`Groups=` grants nothing: the system agent (root) warns with the line.
    @Test func aManifestNamingAnUnknownUserOrGroupIsWarnedAbout() {
        struct Facts: SystemFacts {
            func plugin(at path: String) -> PluginStatus { .missing }
            func userExists(_ name: String) -> Bool { name == "alice" }
            func groupExists(_ name: String) -> Bool { name == "staff" }
        }
        let text = "[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=refresh\nUsers=alice alcie\nGroups=staff stuff\n"
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/a.manifest", text), facts: Facts())
        #expect(printed(registry.diagnostics) == [
            "manifests.d/a.manifest:4: warning: Users: there is no user \"alcie\" on this machine, so it grants nothing "
                + "until one is created (a typo? getent passwd lists them)",
            "manifests.d/a.manifest:5: warning: Groups: there is no group \"stuff\" on this machine, so it grants nothing "
                + "until one is created (a typo? getent group lists them)",
        ])
        #expect(registry.manifestsByPath["manifests.d/a.manifest"]?.users == ["alice", "alcie"], "kept: the user may be created later")
        // The per-user agent ignores Users=/Groups=: nothing to warn about.
        var user = ConfigRegistry(agentUID: 1000, agentUserName: "alice", privileged: false)
        _ = user.update(source("manifests.d/a.manifest", text), facts: Facts())
        #expect(user.diagnostics.isEmpty, "\(user.diagnostics)")
    }

    @Test func checkWarnsWhenAJobNeedsMoreLaunchesThanItsBudget() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/com.example.manifest",
                                   "[Manifest]\nPermittedIdentifiers=com.example.*\nBackgroundModes=processing\nDailyBudget=48\n"),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/x.job", jobText("com.example.x", "Schedule=*:0/5\n")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/y.job", jobText("com.example.y", "Interval=1h\n")), facts: FakeFacts())
        #expect(printed(BudgetCheck.warnings(registry)) == [
            "jobs.d/x.job: warning: Schedule=*:0/5 needs 288 launches a day; manifest com.example allows 48: the rest "
                + "wait for the next day's budget; raise DailyBudget= (or set it to infinity) or run it less often",
        ])
    }

    /// A window lets a job start only while it is open: the launches it needs are those, not a
    /// whole day's (a minutely job in a 3-minute window was warned of 1,440).
    @Test func theLaunchesAJobNeedsAreThoseItsWindowLetsStart() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/com.example.manifest",
                                   "[Manifest]\nPermittedIdentifiers=com.example.*\nBackgroundModes=processing\nDailyBudget=48\n"),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/w.job", jobText("com.example.w", "Schedule=minutely\nWindow=20:39-20:42\n")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/i.job", jobText("com.example.i", "Interval=1min\nWindow=23:00-01:00\n")), facts: FakeFacts())
        #expect(printed(BudgetCheck.warnings(registry)) == [
            "jobs.d/i.job: warning: Interval=1min needs 120 launches a day; manifest com.example allows 48: the rest "
                + "wait for the next day's budget; raise DailyBudget= (or set it to infinity) or run it less often",
        ])
        let job = registry.allJobs.first { $0.definition.identifier.rawValue == "com.example.w" }
        #expect(job.flatMap { BudgetCheck.launchesPerDay($0.definition) } == 3)
    }

    @Test func checkWarnsWhenAChainNamesNoJobAgentdRuns() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/local.manifest",
                                   "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=processing\nDailyBudget=infinity\n"),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/fetch.job", jobText("local.fetch", "OnSuccess=local.procces\nOnFailure=local.report\n")),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/process.job", jobText("local.process", "")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/report.job", jobText("local.report", "")), facts: FakeFacts())
        // Not permitted: no manifest lists other.*.
        _ = registry.update(source("jobs.d/clean.job", jobText("local.clean", "OnSuccess=other.x\n")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/x.job", jobText("other.x", "")), facts: FakeFacts())
        #expect(printed(ChainTargetCheck.warnings(registry)) == [
            "jobs.d/clean.job: warning: OnSuccess=other.x: no job agentd runs has that identifier, so a success "
                + "launches nothing; add a job with Identifier=other.x or remove the line",
            "jobs.d/fetch.job: warning: OnSuccess=local.procces: no job agentd runs has that identifier (did you mean "
                + "local.process?), so a success "
                + "launches nothing; add a job with Identifier=local.procces or remove the line",
        ])
    }

    /// An OnSuccess= cycle is refused at load; one through OnFailure= loads, and check says
    /// that its jobs start each other while they fail.
    @Test func checkWarnsOfAChainCycleThroughOnFailure() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/local.manifest",
                                   "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=processing\nDailyBudget=infinity\n"),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/a.job", jobText("local.a", "OnFailure=local.b\n")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/b.job", jobText("local.b", "OnSuccess=local.c\n")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/c.job", jobText("local.c", "OnFailure=local.a\n")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/report.job", jobText("local.report", "")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/d.job", jobText("local.d", "OnFailure=local.report\n")), facts: FakeFacts())
        #expect(printed(ChainTargetCheck.warnings(registry)) == [
            "jobs.d/a.job: warning: chains form a cycle through OnFailure=: local.a (OnFailure=) → local.b (OnSuccess=) → "
                + "local.c (OnFailure=) → local.a; while they fail they start each other again, once every TriggerSpacing=: "
                + "remove one of these lines",
        ])
    }

    @Test func checkWarnsOfAScheduleWhoseEveryDateIsPast() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/local.manifest",
                                   "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=processing\nDailyBudget=infinity\n"),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/once.job", jobText("local.once", "Schedule=2020-01-01\n")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/years.job", jobText("local.years", "Schedule=2025..2026-*-01 04:00\n")),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/daily.job", jobText("local.daily", "Schedule=daily\n")), facts: FakeFacts())
        // 2026-12-07 12:00 UTC: the years' last date, 2026-12-01 04:00, is past; ten days
        // earlier it was not.
        let now = SchedulerTime(seconds: 1_796_644_800)
        #expect(printed(PastScheduleCheck.warnings(registry, now: now, rule: FixedUTCOffset.utc)) == [
            "jobs.d/once.job: warning: Schedule=2020-01-01: every date it names is past, so it starts "
                + "nothing again: the job runs only when requested, triggered or run; give a date to come "
                + "(agentctl calendar shows when an expression next elapses)",
            "jobs.d/years.job: warning: Schedule=2025..2026-*-01 04:00: every date it names is past, so it "
                + "starts nothing again: the job runs only when requested, triggered or run; give a date to come "
                + "(agentctl calendar shows when an expression next elapses)",
        ])
        let before = SchedulerTime(seconds: 1_796_644_800 - 10 * 86_400)
        #expect(printed(PastScheduleCheck.warnings(registry, now: before, rule: FixedUTCOffset.utc)) == [
            "jobs.d/once.job: warning: Schedule=2020-01-01: every date it names is past, so it starts "
                + "nothing again: the job runs only when requested, triggered or run; give a date to come "
                + "(agentctl calendar shows when an expression next elapses)",
        ])
    }

    @Test func anUnlimitedManifestNeverWarns() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/local.manifest",
                                   "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=processing\nDailyBudget=infinity\n"),
                            facts: FakeFacts())
        _ = registry.update(source("jobs.d/x.job", jobText("local.x", "Interval=1min\n")), facts: FakeFacts())
        #expect(BudgetCheck.warnings(registry).isEmpty)
    }

    @Test func aDropInScriptHasNoRuntimeLimitByDefault() throws {
        let job = try #require(DropInScript.parse(Array("#!/bin/sh\n".utf8), path: "jobs.d/backup",
                                                  context: privilegedContext, facts: FakeFacts(), ownerUID: 0).value)
        #expect(job.maxRuntime == nil)
    }

    @Test func aDropInNotOwnedByRootCannotRaiseItsPriority() {
        let text = "#!/bin/sh\n# agentd: Nice=-5 CPUWeight=500\n# agentd: IOSchedulingPriority=0\n"
        let result = DropInScript.parse(Array(text.utf8), path: "jobs.d/backup", context: privilegedContext,
                                        facts: FakeFacts(), ownerUID: 1000)
        #expect(result.value == nil)
        let messages = printed(result.diagnostics)
        #expect(messages.contains { $0.hasPrefix("jobs.d/backup:2: Nice: -5 is below 0 and this drop-in script is owned by alice") })
        #expect(messages.contains { $0.hasPrefix("jobs.d/backup:2: CPUWeight: 500 is above the default 100") })
        #expect(messages.contains { $0.hasPrefix("jobs.d/backup:3: IOSchedulingPriority: 0 is best-effort's highest level") })
        let root = DropInScript.parse(Array(text.utf8), path: "jobs.d/backup", context: privilegedContext,
                                      facts: FakeFacts(), ownerUID: 0)
        #expect(root.value != nil)
    }

    @Test(arguments: ["a..b", ".a", "a.", ".", ".."])
    func identifiersWithAnEmptyComponentAreRefused(_ raw: String) {
        #expect(Identifier(rawValue: raw) == nil)
        #expect(Identifier.problem(with: raw)?.contains("empty dot-separated component") == true)
    }

    @Test func aWildcardPatternStillEndsInDotStar() {
        #expect(IdentifierPattern(rawValue: "com.example.*") != nil)
        #expect(IdentifierPattern(rawValue: "com..example.*") == nil)
    }
}
