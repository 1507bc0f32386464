// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// A manifest for the budget tests: its patterns, kinds and optional `DailyBudget=`.
func manifest(_ patterns: [String], _ kinds: Set<JobKind> = [.refresh, .processing],
              dailyBudget: Int? = nil) -> Manifest
{
    Manifest(permitted: patterns.compactMap(IdentifierPattern.init(rawValue:)), backgroundModes: kinds,
             dailyBudget: dailyBudget)
}

/// DESIGN §3, §6 (issue 12 item 4): `DailyBudget=` is per manifest; a job spends the budget of
/// the manifest that permits it — the most specific pattern, then the first name.
@Suite struct BudgetAccountRuleTests {
    @Test func anExactIdentifierWinsOverAnyWildcard() {
        let accounts = BudgetAccounts([
            "wide": manifest(["com.example.photos.*"]),
            "zz-exact": manifest(["com.example.photos.sync"]),
        ])
        #expect(accounts.account(for: id("com.example.photos.sync"), kind: .refresh) == "zz-exact")
        #expect(accounts.account(for: id("com.example.photos.other"), kind: .refresh) == "wide")
    }

    @Test func theLongestWildcardWins() {
        let accounts = BudgetAccounts([
            "a-vendor": manifest(["com.example.*"]),
            "photos": manifest(["com.example.photos.*"]),
        ])
        #expect(accounts.account(for: id("com.example.photos.sync"), kind: .refresh) == "photos")
        #expect(accounts.account(for: id("com.example.mail.fetch"), kind: .refresh) == "a-vendor")
    }

    @Test func onlyAManifestThatPermitsTheKindCounts() {
        let accounts = BudgetAccounts([
            "exact-refresh-only": manifest(["com.example.photos.sync"], [.refresh]),
            "photos": manifest(["com.example.photos.*"], [.processing]),
        ])
        #expect(accounts.account(for: id("com.example.photos.sync"), kind: .processing) == "photos")
    }

    @Test func equalPatternsGoToTheManifestNamedFirst() {
        let accounts = BudgetAccounts(["b": manifest(["local.*"]), "a": manifest(["local.*"])])
        #expect(accounts.account(for: id("local.backup"), kind: .processing) == "a")
    }

    @Test func aManifestsOwnLimitOverridesTheDefault() {
        let accounts = BudgetAccounts(["photos": manifest(["com.example.photos.*"], dailyBudget: 12),
                                       "local": manifest(["local.*"])])
        #expect(accounts.limit(of: "photos", default: 48) == 12)
        #expect(accounts.limit(of: "local", default: 48) == 48)
    }

    @Test func theManifestNameIsTheFileNameWithoutItsSuffix() {
        #expect(BudgetAccounts.manifestName(ofPath: "manifests.d/com.example.photos.manifest") == "com.example.photos")
        #expect(BudgetAccounts.manifestName(ofPath: "manifests.d/.manifest") == nil)
        #expect(BudgetAccounts.manifestName(ofPath: "jobs.d/x.manifest") == nil)
    }
}

@Suite struct SchedulingManifestBudgetTests {
    /// The issue's motivating case: sysstat's 10-minute collector (144 runs a day) spends its
    /// own manifest's budget and waits; the photos package's job still runs on its own budget.
    @Test func aCollectorSpendsOnlyItsOwnManifestsBudget() {
        var sim = Simulation(settings: settings(dailyBudget: 48))
        sim.send(.budgetsChanged(BudgetAccounts([
            "local": manifest(["local.*"]),
            "com.example.photos": manifest(["com.example.photos.*"], dailyBudget: 12),
        ])))
        sim.send(.jobsChanged([job("local.sysstat", .processing, interval: minutes(10)),
                               job("com.example.photos.sync", interval: hours(1))]))
        sim.advance(to: morning + hours(15) + minutes(30))  // 23:30
        #expect(sim.launches(of: "local.sysstat").count == 48)
        #expect(sim.launches(of: "com.example.photos.sync").count == 12)
        let spent = sim.waiting("local.sysstat")
        #expect(spent == .budget(BudgetStanding(account: "local", used: 48, limit: 48,
                                                refillsAt: midnightUTC + hours(24))))
        #expect(spent?.description == "budget of local")
        // Photos spent its 12 by 19:00; sysstat's 48 were gone by 16:00 and never touched them.
        #expect(sim.launches(of: "com.example.photos.sync").last?.time == morning + hours(11))
        #expect(sim.scheduler.budgetStandings(now: sim.now).map(\.used) == [12, 48])
        sim.advance(to: midnightUTC + hours(24) + minutes(5))
        #expect(sim.launches(of: "local.sysstat").last?.time == midnightUTC + hours(24))
        #expect(sim.launches(of: "com.example.photos.sync").last?.time == midnightUTC + hours(24))
        #expect(sim.scheduler.checkInvariants(now: sim.now).isEmpty)
    }

    @Test func theOtherManifestsJobLaunchesWhileOneManifestIsSpent() {
        var sim = Simulation(settings: settings(dailyBudget: 1))
        sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"]),
                                                 "com.example": manifest(["com.example.*"])])))
        sim.send(.jobsChanged([job("local.a"), job("com.example.b")]))
        sim.send(.trigger(id("local.a")))
        sim.advance(by: minutes(20))
        sim.send(.trigger(id("local.a")))          // local spent: waits
        sim.send(.trigger(id("com.example.b")))    // its own budget: runs
        #expect(sim.launches.map(\.job) == [id("local.a"), id("com.example.b")])
        #expect(sim.waiting("local.a").budgetRefill == midnightUTC + hours(24))
        #expect(sim.scheduler.nextDeadline == midnightUTC + hours(24))
        #expect(sim.scheduler.explain(id("local.a")).last?.description.contains("deferred: budget of local (1/1)") == true)
    }

    /// 300 due jobs, a budget of 2: when it runs out the 298 others wait on it together (one
    /// pass, not a heap move each), and the other manifest's job still launches, in order.
    @Test func aCrowdWaitsOnASpentBudgetTogetherAndOtherManifestsStillLaunch() {
        var sim = Simulation(settings: settings(maxConcurrent: 1, dailyBudget: 2))
        sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"]),
                                                 "com.example": manifest(["com.example.*"])])))
        let crowd = (0..<300).map { job("local.j\(1000 + $0)", interval: hours(24)) }
        sim.send(.jobsChanged(crowd + [job("com.example.late", interval: hours(24))]))
        sim.advance(by: minutes(30))
        #expect(sim.launches(of: "local.j1000").count == 1)
        #expect(sim.launches(of: "local.j1001").count == 1)
        #expect(sim.launches(of: "com.example.late").count == 1)
        #expect(sim.launches.count == 3)
        for index in [1002, 1150, 1299] {
            #expect(sim.waiting("local.j\(index)")?.description == "budget of local")
        }
        #expect(sim.scheduler.checkInvariants(now: sim.now).isEmpty)
    }

    @Test func aLargerDailyBudgetInTheManifestAppliesAtOnce() {
        var sim = Simulation(settings: settings(dailyBudget: 1), jobs: [job("local.a")])
        sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"])])))
        sim.send(.trigger(id("local.a")))
        sim.advance(by: minutes(20))
        sim.send(.trigger(id("local.a")))
        #expect(sim.launches.count == 1)
        let actions = sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"], dailyBudget: 5)])))
        #expect(sim.launches.count == 2)
        #expect(actions.contains(.log("budget of local: DailyBudget=5 from now on (1 used today)")))
        #expect(sim.scheduler.budgetStandings(now: sim.now).first?.used == 2)
    }

    @Test func aRemovedManifestsLedgerGoes() {
        var sim = Simulation(jobs: [job("local.a"), job("com.example.b")])
        sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"]),
                                                 "com.example": manifest(["com.example.*"])])))
        sim.send(.trigger(id("com.example.b")))
        #expect(sim.scheduler.snapshot.budgetLedgers["com.example"]?.spent == 1)
        sim.send(.jobsUpdated(changed: [], removed: [id("com.example.b")]))
        sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"])])))
        #expect(sim.scheduler.snapshot.budgetLedgers["com.example"] == nil)
        #expect(sim.scheduler.budgetStandings(now: sim.now).map(\.account) == ["local"])
    }

    @Test func ledgersArePersistedPerManifestAndRestored() {
        var sim = Simulation(jobs: [job("local.a")])
        sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"], dailyBudget: 3)])))
        sim.send(.trigger(id("local.a")))
        guard let saved = sim.persisted else {
            Issue.record("nothing persisted")
            return
        }
        #expect(saved.budgetLedgers == ["local": BudgetLedgerEntry(day: "2026-11-30", spent: 1)])
        var restarted = Simulation(start: morning + hours(1), restored: saved)
        restarted.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"], dailyBudget: 3)])))
        #expect(restarted.scheduler.budgetStandings(now: restarted.now).first?.used == 1)
    }

    /// State written by an agent with one agent-wide ledger: every manifest starts that day
    /// with what it says (never more launches than before the upgrade), and the next local
    /// midnight refills them all.
    @Test func anOldAgentWideLedgerCountsAsEveryManifestsLedgerThatDay() throws {
        let old = #"{"budgetDay":"2026-11-30","budgetSpent":47,"paused":false}"#
        let snapshot = try JSONText.decode(PersistedSchedule.self, old)
        var sim = Simulation(settings: settings(dailyBudget: 48), restored: snapshot)
        sim.send(.budgetsChanged(BudgetAccounts(["local": manifest(["local.*"]),
                                                 "com.example": manifest(["com.example.*"])])))
        sim.send(.jobsChanged([job("local.a"), job("com.example.b")]))
        sim.send(.trigger(id("local.a")))
        sim.send(.trigger(id("com.example.b")))
        #expect(sim.scheduler.budgetStandings(now: sim.now).map(\.used) == [48, 48])
        #expect(sim.launches.count == 2)
        sim.advance(by: minutes(20))
        sim.send(.trigger(id("local.a")))
        #expect(sim.waiting("local.a") == .budget(BudgetStanding(account: "local", used: 48, limit: 48,
                                                                refillsAt: midnightUTC + hours(24))))
        #expect(sim.launches.count == 2)
        sim.advance(to: midnightUTC + hours(24))
        #expect(sim.launches.count == 3)
        #expect(sim.scheduler.budgetStandings(now: sim.now).map(\.used) == [0, 1])
    }
}

@Suite struct RegistryBudgetAccountTests {
    @Test func everyManifestInForceIsABudgetAccountAndAChangedBudgetIsAPermissionChange() {
        var registry = registryWithManifest()
        func photos(_ budget: Int) -> String {
            "[Manifest]\nPermittedIdentifiers=com.example.photos.*\nBackgroundModes=refresh\nDailyBudget=\(budget)\n"
        }
        _ = registry.update(source("manifests.d/com.example.photos.manifest", photos(12)), facts: FakeFacts())
        #expect(registry.budgetAccounts.names == ["com.example.photos", "local"])
        #expect(registry.budgetAccounts.limit(of: "com.example.photos", default: 48) == 12)
        #expect(registry.budgetAccounts.account(for: id("com.example.photos.sync"), kind: .refresh) == "com.example.photos")
        #expect(registry.budgetAccounts.account(for: id("com.example.mail"), kind: .refresh) == "local")
        let change = registry.update(source("manifests.d/com.example.photos.manifest", photos(20)), facts: FakeFacts())
        #expect(change.permissionsChanged)
        #expect(registry.budgetAccounts.limit(of: "com.example.photos", default: 48) == 20)
        _ = registry.remove(relativePath: "manifests.d/com.example.photos.manifest", facts: FakeFacts())
        #expect(registry.budgetAccounts.names == ["local"])
    }
}

/// Per-manifest budgets keep decisions O(log n): held jobs wait apart, indexed by manifest.
@Suite struct ManifestBudgetScaleTests {
    @Test func tenThousandJobsOfAHundredSpentManifestsCostNothingPerEventAndALimitChangeOnlyItsJobs() {
        var manifests: [String: Manifest] = [:]
        var definitions: [JobDefinition] = []
        for m in 0..<100 {
            manifests["com.example.m\(m)"] = manifest(["com.example.m\(m).*"], dailyBudget: 2)
            for j in 0..<100 { definitions.append(job("com.example.m\(m).j\(j)", interval: hours(1))) }
        }
        definitions.append(job("local.free"))
        manifests["local"] = manifest(["local.*"])
        var scheduler = Scheduler(settings: settings(maxConcurrent: 10_000), calendar: .utc, seed: 5)
        _ = scheduler.handle(.budgetsChanged(BudgetAccounts(manifests)), now: morning)
        _ = scheduler.handle(.jobsChanged(definitions), now: morning)
        let first = scheduler.handle(.tick, now: morning)
        #expect(first.filter { if case .launch = $0 { true } else { false } }.count == 200)
        // Every manifest spent, 9,800 jobs held: another manifest's trigger looks at almost nothing.
        _ = scheduler.handle(.trigger(id("local.free")), now: morning + .seconds(1))
        #expect(scheduler.lastEventWork <= 4)
        // One manifest's budget raised to 5: three of its jobs start, the 9,700 others are not looked at.
        manifests["com.example.m7"] = manifest(["com.example.m7.*"], dailyBudget: 5)
        let raised = scheduler.handle(.budgetsChanged(BudgetAccounts(manifests)), now: morning + .seconds(2))
        let launched = raised.compactMap { if case .launch(let order) = $0 { order.job.identifier.rawValue } else { nil } }
        #expect(launched.count == 3)
        #expect(launched.allSatisfy { $0.hasPrefix("com.example.m7.") })
        #expect(scheduler.lastEventWork <= 200)
        #expect(scheduler.checkInvariants(now: morning + .seconds(2)).isEmpty)
    }
}
