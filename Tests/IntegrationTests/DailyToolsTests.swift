// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What an administrator's daily commands say about a job that cannot run, against a real
/// agentd: each names the state `list` shows and points at a command that does what it says.
@Suite(.serialized) struct DailyToolsTests {
    private static func write(_ sandbox: Sandbox, _ name: String, kind: String) throws {
        try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nKind=\(kind)\nExec=\(sandbox.pluginPath)\n")
    }

    @Test func explainNamesADisabledJobAndOneWhoseFileIsGone() throws {
        let sandbox = try Sandbox()
        try Self.write(sandbox, "short", kind: "processing")
        let agent = try AgentProcess(sandbox: sandbox)
        // It never ran: the agent says its kind, and which job's OnSuccess= starts it.
        #expect(try agent.ctl("explain", "local.short").stdout.contains("  now: not due: nothing pending (it runs when requested, triggered or run)"))
        #expect(try agent.ctl("disable", "local.short").status == 0)
        let disabled = try agent.ctl("explain", "local.short")
        #expect(disabled.stdout.contains("  now: waiting: disabled"), "\(disabled.stdout)")
        let json = try json(try agent.ctl("explain", "local.short", "--json").stdout) as? [String: Any]
        let waiting = json?["waiting"] as? [[String: Any]]
        #expect(waiting?.first?["reason"] as? String == "denied", "\(String(describing: json))")

        // Once run, its timeline outlives its file: explain still shows it, and says it cannot run.
        #expect(try agent.ctl("enable", "local.short").status == 0)
        #expect(try agent.ctl("run", "local.short").status == 0)
        try agent.waitForLog("of local.short ended:")
        try FileManager.default.removeItem(atPath: sandbox.configDirectory + "/jobs.d/short.job")
        try agent.waitForLog("removed local.short")
        let gone = try agent.ctl("explain", "local.short")
        #expect(gone.stdout.contains("  now: not registered: no job file defines it any more"), "\(gone.stdout)\(gone.stderr)")
    }

    /// DESIGN §4: continued work is started by a submission only; run-if-stale is no way round.
    @Test func runIfStaleRefusesAContinuedJobAsRunAndTriggerDo() throws {
        let sandbox = try Sandbox()
        try Self.write(sandbox, "export", kind: "continued")
        let agent = try AgentProcess(sandbox: sandbox)
        for command in [["run"], ["trigger"], ["run-if-stale", "--max-age", "1h"]] {
            let refused = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + command + ["local.export"])
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("local.export is a continued job: a person starts it with agentctl submit local.export"),
                    "\(command): \(refused.stderr)")
        }
        #expect(try agent.ctl("history", "local.export").stdout == "No runs yet (agentctl submit local.export starts one).\n")
        // A dynamic identifier under it (the manifest permits local.*) is submitted the same way.
        #expect(try agent.ctl("history", "local.export.holidays").stdout
            == "No runs yet (agentctl submit local.export.holidays starts one).\n")
        #expect(try agent.ctl("explain", "local.export.holidays").stdout.contains("now: not due: nothing pending (it runs when submitted)"))
    }

    /// A job that never ran: `explain` and `history` say what starts it by its kind and its
    /// chains, and for a file in error that it cannot run (`run` would fail with the errors).
    @Test func aJobThatNeverRanIsToldWhatStartsItOrWhyNothingCan() throws {
        let sandbox = try Sandbox()
        try Self.write(sandbox, "tidy", kind: "refresh")
        try sandbox.write("jobs.d/fetch.job", "[Job]\nIdentifier=local.fetch\nKind=processing\nExec=\(sandbox.pluginPath)\n"
            + "OnSuccess=local.tidy\n")
        try sandbox.write("jobs.d/bad.job", "[Job]\nIdentifier=local.bad\nKind=refresh\nExec=\(sandbox.pluginPath)\nInterval=banana\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let tidy = try agent.ctl("explain", "local.tidy")
        #expect(tidy.stdout.contains("  now: not due: nothing pending (it runs when requested, triggered or run, "
            + "and when local.fetch succeeds (OnSuccess=))"), "\(tidy.stdout)")
        let json = try json(try agent.ctl("explain", "local.tidy", "--json").stdout) as? [String: Any]
        #expect(json?["kind"] as? String == "refresh" && json?["chainedBy"] as? [String] == ["local.fetch"], "\(String(describing: json))")
        #expect(try agent.ctl("history", "local.tidy").stdout == "No runs yet (agentctl run local.tidy starts one now).\n")
        let bad = try agent.ctl("history", "local.bad")
        #expect(bad.stdout.hasPrefix("No runs yet: local.bad is not registered: jobs.d/bad.job has errors (jobs.d/bad.job:5: "
            + "Interval: \"banana\" is not a time span"), "\(bad.stdout)\(bad.stderr)")
        #expect(bad.status == 0)
    }

    /// docs/json.md: with `DailyBudget=infinity`, `leftLaunchCount` is Int64.max, however many
    /// launches were spent.
    @Test func anUnlimitedBudgetStaysUnlimitedAfterALaunch() throws {
        let sandbox = try Sandbox()
        try sandbox.write("manifests.d/local.manifest",
                          "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=refresh processing continued\nDailyBudget=infinity\n")
        try sandbox.write("jobs.d/feed.job", sandbox.jobFile("feed", kind: "refresh", interval: "1d"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("of local.feed ended:")
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let budgets = status?["budgets"] as? [[String: Any]]
        let local = budgets?.first { $0["manifest"] as? String == "local" }
        #expect((local?["spentLaunchCount"] as? NSNumber)?.intValue ?? 0 >= 1, "\(String(describing: local))")
        #expect((local?["leftLaunchCount"] as? NSNumber)?.int64Value == Int64.max, "\(String(describing: local))")
        #expect((status?["budgetLeft"] as? NSNumber)?.int64Value == Int64.max)
    }

    /// A queued submission keeps its request number over a restart, and new ones go on above
    /// it: explain never shows two submissions with one number.
    @Test func requestNumbersGoOnAfterARestart() throws {
        let sandbox = try Sandbox()
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=1\n")
        let plugin = try sandbox.script("slow", "echo PROGRESS=1/100; sleep 60\n")
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(plugin)\nProgressTimeout=5min\n")
        let before = try AgentProcess(sandbox: sandbox)
        #expect(try before.ctl("submit", "local.export", "--title", "first").stdout.contains("as request 1"))
        let queued = try before.ctl("submit", "local.export", "--title", "second")
        #expect(queued.stdout.contains("as request 2: queued"), "\(queued.stdout)")
        before.stop()
        let agent = try AgentProcess(sandbox: sandbox)
        let next = try agent.ctl("submit", "local.export", "--title", "third")
        #expect(next.stdout.contains("as request 3"), "\(next.stdout)")
        agent.stop()
    }

    /// A system agent started by hand beside the service, on the same state with a socket of its
    /// own, could not know what the first has run, disabled or paused: it refuses before it
    /// touches anything, and runs nothing.
    @Test func aSecondAgentOnTheSameStateRefusesBeforeRunningAnything() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/iv.job", "[Job]\nIdentifier=local.iv\nKind=processing\nExec=\(sandbox.pluginPath)\nInterval=1h\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("of local.iv ended:")
        let second = try runCommand(Binaries.agentd, ["--config-dir", sandbox.configDirectory, "--state-dir", sandbox.stateDirectory,
                                                      "--socket", sandbox.root + "/second.sock", "--simulated-machine"])
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains("agentd: already running on \(sandbox.stateDirectory): another agentd holds \(sandbox.stateDirectory)/agentd.lock (pid \(agent.process.processIdentifier))"),
                "\(second.stderr)")
        #expect(!second.stderr.contains("started"), "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/second.sock"))
        // The lock file deleted (a cleanup script): the state directory's own lock still holds.
        try FileManager.default.removeItem(atPath: sandbox.stateDirectory + "/agentd.lock")
        let third = try runCommand(Binaries.agentd, ["--config-dir", sandbox.configDirectory, "--state-dir", sandbox.stateDirectory,
                                                     "--socket", sandbox.root + "/third.sock", "--simulated-machine"])
        #expect(third.status == 1, "\(third)")
        #expect(third.stderr.contains("agentd: already running on \(sandbox.stateDirectory): another agentd holds"), "\(third.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/third.sock"))
    }
}
