// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// How the BackgroundTasks library starts and ends a launched app ported from iOS (helper-42):
/// the handler after the launch, the expiration handler once and while the handler still works,
/// and an app whose main returns ending as a failure, not a success. The app is
/// Tests/BackgroundTasksProbe.
@Suite struct LibraryLaunchTests {
    private func agent(_ name: String, extra: String = "") throws -> (Sandbox, AgentProcess) {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nKind=processing\n"
            + "Exec=\(Binaries.directory)/background-tasks-probe\n" + extra)
        return (sandbox, try AgentProcess(sandbox: sandbox))
    }

    /// Apple's AppDelegate registers its handlers, then sets up what they use: the handler
    /// starts once main has handed the main queue over (dispatchMain), not on registering.
    @Test func theLaunchHandlerStartsAfterMainHasFinishedLaunching() throws {
        let (_, agent) = try agent("probe-late-state")
        #expect(try agent.ctl("simulate", "launch", "local.probe-late-state").status == 0)
        let ended = try agent.waitForLog("of local.probe-late-state ended")
        #expect(agent.logLines.contains { $0.contains("server at handler start: https://example.com") }, "\(agent.logLines)")
        #expect(ended.contains("ended: success"), "\(ended)")
    }

    /// A handler holding its serial queue until told to stop hears the expiry (it used to be
    /// queued behind the handler, and the run was SIGKILLed), and hears it once, though the
    /// agent signals the process, its group and its cgroup (`ExpirationOnceTests` holds the
    /// "once" without a race).
    @Test func theExpirationHandlerIsCalledOnceWhileTheHandlerStillWorks() throws {
        let (_, agent) = try agent("probe-blocking", extra: "GracePeriod=20s\n")
        for round in 1...3 {
            let start = agent.logLines.count
            #expect(try agent.ctl("simulate", "launch", "local.probe-blocking").status == 0)
            try agent.waitForLog("probe: working", after: start)
            let before = agent.logLines.count
            #expect(try agent.ctl("simulate", "expire", "local.probe-blocking").status == 0)
            let calls = try agent.waitForLog("expirationHandler calls:", after: before)
            #expect(calls.hasSuffix("expirationHandler calls: 1"), "round \(round): \(calls)")
            let ended = try agent.waitForLog("of local.probe-blocking ended", after: before)
            #expect(ended.contains("ended: expired(simulated)"), "\(ended)")
        }
        let history = try json(try agent.ctl("history", "--json").stdout) as? [[String: Any]] ?? []
        // Each ended itself (setTaskCompleted: exit 1), none by the grace period's SIGKILL.
        #expect(history.count == 3 && history.allSatisfy { $0["exitStatus"] as? Int == 1 && $0["signal"] as? Int != 9 },
                "\(history)")
    }

    /// iOS never lets main return; here a main that does used to end the run `success` with its
    /// work never done. It ends as a failure, and says what to do.
    @Test func anAppWhoseMainReturnsBeforeItsTaskIsCompletedFails() throws {
        let (_, agent) = try agent("probe-exit-early")
        #expect(try agent.ctl("simulate", "launch", "local.probe-exit-early").status == 0)
        let ended = try agent.waitForLog("of local.probe-exit-early ended")
        #expect(ended.contains("ended: failure(exit 1)"), "\(ended)")
        #expect(!agent.logLines.contains { $0.contains("probe: work done") })
        #expect(agent.logLines.contains { $0.contains("is exiting before its task called setTaskCompleted(success:)") },
                "\(agent.logLines)")
    }

    /// A main that never hands the main queue over still gets its handler called, late, and is
    /// told why.
    @Test func aMainThatHoldsTheMainQueueGetsItsHandlerLateAndIsToldWhy() throws {
        let (_, agent) = try agent("probe-main-waits")
        #expect(try agent.ctl("simulate", "launch", "local.probe-main-waits").status == 0)
        let ended = try agent.waitForLog("of local.probe-main-waits ended")
        #expect(ended.contains("ended: success"), "\(ended)")
        #expect(agent.logLines.contains { $0.contains("the launch handler waited 2 s for main") }, "\(agent.logLines)")
        #expect(agent.logLines.contains { $0.contains("probe: handler ran") })
    }

    /// iOS lists and withdraws the calling app's requests only: the common guard
    /// `if pending.isEmpty { schedule() }` must not see another app's (helper-42). The app's are
    /// the identifiers it registered handlers for.
    @Test func pendingAndCancelAllAreTheAppsOwnRequests() throws {
        let (sandbox, agent) = try agent("probe-late-state")
        try sandbox.write("jobs.d/other.job", "[Job]\nIdentifier=local.other\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        try agent.waitForLog("registered local.other")
        for id in ["local.probe-late-state", "local.other"] {
            #expect(try agent.ctl("request", id, "--earliest", "+1h").status == 0)
        }
        let probe = Binaries.directory + "/background-tasks-probe"
        let environment = ["AGENTD_SOCKET": sandbox.socketPath, "PATH": "/usr/bin:/bin"]
        let pending = try runCommand(probe, ["pending"], environment: environment)
        #expect(pending.stdout == "local.probe-late-state\n", "\(pending)")
        #expect(try runCommand(probe, ["cancel-all"], environment: environment).status == 0)
        let left = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        #expect(left.compactMap { $0["request"] != nil ? $0["identifier"] as? String : nil } == ["local.other"], "\(left)")
    }
}
