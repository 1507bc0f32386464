// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Per-manifest daily budgets (DESIGN §3, §6; issue 12 item 4) in a real agentd: each manifest
/// spends its own budget, status, explain and metrics name it, and a manifest's `DailyBudget=`
/// applies live.
@Suite(.serialized) struct ManifestBudgetIntegrationTests {
    private func budgets(_ agent: AgentProcess) throws -> [String: [String: Any]] {
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any] ?? [:]
        var byName: [String: [String: Any]] = [:]
        for budget in status["budgets"] as? [[String: Any]] ?? [] {
            if let name = budget["manifest"] as? String { byName[name] = budget }
        }
        return byName
    }

    private func photosManifest(budget: Int) -> String {
        "[Manifest]\nPermittedIdentifiers=com.example.photos.*\nBackgroundModes=refresh\nDailyBudget=\(budget)\n"
    }

    @Test func statusWarnsOfAJobNeedingMoreLaunchesThanItsBudgetUntilTheBudgetIsRaised() throws {
        let sandbox = try Sandbox()
        try sandbox.write("agentd.conf", "[Agent]\nDailyBudget=3\n")
        try sandbox.write("manifests.d/com.example.photos.manifest", photosManifest(budget: 2))
        let quick = try sandbox.script("quick", "exit 0\n")
        try sandbox.write("jobs.d/often.job", "[Job]\nIdentifier=com.example.photos.often\nKind=refresh\nInterval=10min\nExec=\(quick)\n")
        try sandbox.write("jobs.d/tick.job", "[Job]\nIdentifier=local.tick\nKind=refresh\nInterval=1h\nExec=\(quick)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let photos = "jobs.d/often.job: warning: Interval=10min needs 144 launches a day; manifest com.example.photos allows 2"
        let local = "jobs.d/tick.job: warning: Interval=1h needs 24 launches a day; agentd.conf's DailyBudget= (for manifest local) allows 3"
        let first = try agent.ctl("status").stdout
        #expect(first.contains(photos), "\(first)")
        #expect(first.contains(local), "\(first)")
        let diagnostics = (try json(try agent.ctl("status", "--json").stdout) as? [String: Any])?["diagnostics"] as? [[String: Any]]
        #expect(diagnostics?.filter { $0["severity"] as? String == "warning" }.count == 2)

        try sandbox.writeAtomically("manifests.d/com.example.photos.manifest", photosManifest(budget: 200))
        try agent.waitForLog("budget of com.example.photos: DailyBudget=200 from now on")
        let raised = try agent.ctl("status").stdout
        #expect(!raised.contains(photos), "\(raised)")
        #expect(raised.contains(local), "\(raised)")
        try sandbox.writeAtomically("manifests.d/local.manifest",
                                    "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=refresh\nDailyBudget=48\n")
        try agent.waitForLog("budget of local: DailyBudget=48 from now on")
        #expect(try !agent.ctl("status").stdout.contains("launches a day"))
    }

    @Test func twoManifestsSpendTheirOwnBudgetsAndStatusShowsBoth() throws {
        let sandbox = try Sandbox()
        try sandbox.write("agentd.conf", "[Agent]\nDailyBudget=3\nTriggerSpacing=0\n")
        try sandbox.write("manifests.d/com.example.photos.manifest", photosManifest(budget: 1))
        let quick = try sandbox.script("quick", "exit 0\n")
        try sandbox.write("jobs.d/sync.job", "[Job]\nIdentifier=com.example.photos.sync\nKind=refresh\nExec=\(quick)\n")
        try sandbox.write("jobs.d/tick.job", "[Job]\nIdentifier=local.tick\nKind=refresh\nExec=\(quick)\n")
        let agent = try AgentProcess(sandbox: sandbox)

        #expect(try agent.ctl("trigger", "com.example.photos.sync").status == 0)
        try agent.waitForLog("run r000001 of com.example.photos.sync ended: success")
        #expect(try agent.ctl("trigger", "com.example.photos.sync").status == 0)
        try agent.waitForLog("com.example.photos.sync: due, deferred: budget of com.example.photos")
        // The photos package has spent its budget; local's job still runs on its own.
        #expect(try agent.ctl("trigger", "local.tick").status == 0)
        try agent.waitForLog("run r000002 of local.tick ended: success")

        let before = try budgets(agent)
        #expect(before.keys.sorted() == ["com.example.photos", "local"])
        #expect(before["com.example.photos"]?["dailyLaunchCount"] as? Int == 1)
        #expect(before["com.example.photos"]?["spentLaunchCount"] as? Int == 1)
        #expect(before["com.example.photos"]?["leftLaunchCount"] as? Int == 0)
        #expect(before["local"]?["dailyLaunchCount"] as? Int == 3)
        #expect(before["local"]?["spentLaunchCount"] as? Int == 1)
        #expect(JSONInstant.milliseconds(before["local"]?["refillsAt"]) != nil)

        let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        #expect(pending.first?["waitingFor"] as? String == "budget of com.example.photos (1/1, refills 00:00)")
        let explain = try agent.ctl("explain", "com.example.photos.sync").stdout
        #expect(explain.contains("now: waiting: budget of com.example.photos (1/1, refills 00:00)"), "\(explain)")
        let table = try agent.ctl("status").stdout
        #expect(table.contains("com.example.photos  1/1  spent"), "\(table)")
        let metrics = try agent.ctl("metrics").stdout
        #expect(metrics.contains("agentd_budget_launches_left{manifest=\"com.example.photos\"} 0"), "\(metrics)")
        #expect(metrics.contains("agentd_budget_launches_left{manifest=\"local\"} 2"), "\(metrics)")

        // A larger budget in the manifest applies at once: the held job runs.
        try sandbox.writeAtomically("manifests.d/com.example.photos.manifest", photosManifest(budget: 2))
        try agent.waitForLog("budget of com.example.photos: DailyBudget=2 from now on (1 used today)")
        try agent.waitForLog("run r000003 of com.example.photos.sync ended: success")
        let after = try budgets(agent)
        #expect(after["com.example.photos"]?["dailyLaunchCount"] as? Int == 2)
        #expect(after["com.example.photos"]?["spentLaunchCount"] as? Int == 2)
    }

    /// The packaged layout: `local.manifest` says `DailyBudget=infinity` and an app's manifest
    /// has a number. Summing what is left overflowed and killed the agent on `status` (make demo).
    @Test func statusAnswersWithAnUnlimitedManifestBesideARationedOne() throws {
        let sandbox = try Sandbox()
        try sandbox.write("manifests.d/local.manifest", "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=refresh processing\nDailyBudget=infinity\n")
        try sandbox.write("manifests.d/com.example.photos.manifest", photosManifest(budget: 48))
        let agent = try AgentProcess(sandbox: sandbox)
        let table = try agent.ctl("status")
        #expect(table.status == 0, "\(table.stderr)")
        #expect(try agent.ctl("status", "--json").status == 0)
        let metrics = try agent.ctl("metrics")
        #expect(metrics.stdout.contains("agentd_budget_launches_left{manifest=\"local\"} +Inf"), "\(metrics.stdout)")
        #expect(metrics.stdout.contains("agentd_budget_launches_left{manifest=\"com.example.photos\"} 48"))
        let again = try agent.ctl("status").stdout
        #expect(again.contains("local               0/unlimited"), "\(again)")
    }
}
