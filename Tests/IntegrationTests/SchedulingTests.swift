// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The scheduler end to end: real agentd, real plugins, real agentctl.
@Suite(.serialized) struct SchedulingTests {
    private func plugin(_ sandbox: Sandbox, _ name: String, _ body: String) throws -> String {
        let path = sandbox.root + "/\(name).sh"
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    private func pending(_ agent: AgentProcess) throws -> [[String: Any]] {
        try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
    }

    @Test func aNewIntervalJobRunsAtOnceByItselfAndThenWaitsForItsInterval() throws {
        let sandbox = try Sandbox()
        let path = try plugin(sandbox, "tick", "echo STATUS=ticked\n")
        try sandbox.write("jobs.d/tick.job", "[Job]\nIdentifier=local.tick\nKind=refresh\nExec=\(path)\nInterval=1h\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("run r000001 of local.tick started (scheduled")
        try agent.waitForLog("of local.tick ended: success")
        let waiting = try pending(agent).first { $0["identifier"] as? String == "local.tick" }
        #expect((waiting?["waitingFor"] as? String)?.hasPrefix("interval") == true)
        let explain = try agent.ctl("explain", "local.tick")
        #expect(explain.status == 0)
        #expect(explain.stdout.contains("waiting: interval (earliest "))
        #expect(!explain.stdout.contains(") (earliest"), "the reason's time is named once")
    }

    @Test func submittingARefreshJobSaysItIsARefreshJobAndNamesTrigger() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/feed.job", sandbox.jobFile("feed", kind: "refresh", interval: "1h"))
        let agent = try AgentProcess(sandbox: sandbox)
        let refused = try agent.ctl("submit", "local.feed")
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("local.feed is a refresh job: only continued jobs are submitted"))
        #expect(refused.stderr.contains("agentctl trigger local.feed"))
        #expect(!refused.stderr.contains("manifest"))
    }

    @Test func submitWithStrategyFailIsRefusedWhileMaxConcurrentIsFullAndQueueWaitsThenStarts() throws {
        let sandbox = try Sandbox()
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=1\n")
        let long = try plugin(sandbox, "long", "while :; do echo PROGRESS=1/2; sleep 0.2; done\n")
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(long)\nGracePeriod=1s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("submit", "local.export", "--title", "First").status == 0)
        try agent.waitForLog("run r000001 of local.export started (submitted")

        let refused = try agent.ctl("submit", "local.export.second", "--strategy", "fail")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("cannot start now (max concurrent)"))
        #expect(refused.stderr.contains("agentctl submit --strategy queue"))

        #expect(try agent.ctl("submit", "local.export.third", "--strategy", "queue").status == 0)
        let queued = try pending(agent)
        #expect(queued.first?["identifier"] as? String == "local.export.third")
        #expect(queued.first?["waitingFor"] as? String == "max concurrent")

        #expect(try agent.ctl("cancel", "r000001").status == 0)
        try agent.waitForLog("run r000002 of local.export.third started (submitted")
        #expect(try agent.ctl("cancel", "r000002").status == 0)
        try agent.waitForLog("run r000002 of local.export.third ended: cancelled")

        // The job's history holds its submissions under their own identifiers; one of those,
        // asked by name, only its own runs.
        let ofJob = try agent.ctl("history", "local.export")
        #expect(ofJob.status == 0)
        #expect(ofJob.stdout.contains("r000001") && ofJob.stdout.contains("local.export.third"), "\(ofJob.stdout)")
        let ofSubmission = try agent.ctl("history", "local.export.third")
        #expect(ofSubmission.stdout.contains("r000002") && !ofSubmission.stdout.contains("r000001"), "\(ofSubmission.stdout)")
    }

    @Test func aContinuedRunWithoutProgressIsExpiredNoProgress() throws {
        let sandbox = try Sandbox()
        let silent = try plugin(sandbox, "silent", "exec sleep 300\n")
        try sandbox.write("jobs.d/silent.job", "[Job]\nIdentifier=local.silent\nKind=continued\nExec=\(silent)\nProgressTimeout=1s\nGracePeriod=1s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("submit", "local.silent").status == 0)
        try agent.waitForLog("of local.silent ended: expired(no-progress)")
    }

    @Test func submitWaitFollowsTheRunAndExitsWithItsResult() throws {
        let sandbox = try Sandbox()
        let quick = try plugin(sandbox, "quick", "echo TITLE=Quick\nfor i in 1 2 3; do echo PROGRESS=$i/3; sleep 0.1; done\n")
        try sandbox.write("jobs.d/quick.job", "[Job]\nIdentifier=local.quick\nKind=continued\nExec=\(quick)\n")
        let failing = try plugin(sandbox, "failing", "echo PROGRESS=1/1\nexit 7\n")
        try sandbox.write("jobs.d/failing.job", "[Job]\nIdentifier=local.failing\nKind=continued\nExec=\(failing)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let ok = try agent.ctl("submit", "local.quick", "--wait")
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.contains("local.quick: success"))
        let bad = try agent.ctl("submit", "local.failing", "--wait")
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("failure(exit 7)"))
    }

    @Test func pauseHoldsDiscretionaryWorkAndResumeReleasesIt() throws {
        let sandbox = try Sandbox()
        let path = try plugin(sandbox, "held", "exit 0\n")
        try sandbox.write("jobs.d/held.job", "[Job]\nIdentifier=local.held\nKind=processing\nExec=\(path)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("pause").status == 0)
        #expect(try agent.ctl("trigger", "local.held").status == 0)
        let waiting = try pending(agent).first { $0["identifier"] as? String == "local.held" }
        #expect(waiting?["waitingFor"] as? String == "paused")
        #expect(try agent.ctl("resume").status == 0)
        try agent.waitForLog("of local.held ended: success")
    }

    @Test func aDisabledJobWaitsAsDisabledUntilEnabled() throws {
        let sandbox = try Sandbox()
        let path = try plugin(sandbox, "nope", "exit 0\n")
        try sandbox.write("jobs.d/nope.job", "[Job]\nIdentifier=local.nope\nKind=processing\nExec=\(path)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("disable", "local.nope").status == 0)
        #expect(try agent.ctl("trigger", "local.nope").status == 0)
        let waiting = try pending(agent).first { $0["identifier"] as? String == "local.nope" }
        #expect(waiting?["waitingFor"] as? String == "disabled")
        #expect(waiting?["reason"] as? String == "denied")
        let list = try agent.ctl("list")
        #expect(list.stdout.contains("waiting: disabled"), "\(list.stdout)")
        #expect(try agent.ctl("enable", "local.nope").status == 0)
        try agent.waitForLog("of local.nope ended: success")
    }

    @Test func killingTheAgentWithFiveRunningAndTwentyPendingLosesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=5\n")
        let long = try plugin(sandbox, "work", "sleep 300 &\nwhile :; do echo PROGRESS=1/2; sleep 0.5; done\n")
        try sandbox.write("jobs.d/a.job", "[Job]\nIdentifier=local.a\nKind=continued\nExec=\(long)\nGracePeriod=1s\n")
        try sandbox.write("jobs.d/b.job", "[Job]\nIdentifier=local.b\nKind=continued\nExec=\(long)\nGracePeriod=1s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        for index in 0..<13 { #expect(try agent.ctl("submit", "local.a.\(index)").status == 0) }
        for index in 0..<12 { #expect(try agent.ctl("submit", "local.b.\(index)").status == 0) }
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        #expect((status?["running"] as? [Any])?.count == 5)
        #expect(try pending(agent).count == 20)

        kill(agent.process.processIdentifier, SIGKILL)
        agent.process.waitUntilExit()
        let restarted = try AgentProcess(sandbox: sandbox)
        let history = try json(try restarted.ctl("history", "--json", "--limit", "100").stdout) as? [[String: Any]] ?? []
        let restartedRuns = history.filter { $0["stopReason"] as? String == "agent-restart" }
        #expect(restartedRuns.count == 5)
        // The five old runs' processes are gone; five pending ones took their places.
        let after = try json(try restarted.ctl("status", "--json").stdout) as? [String: Any]
        let running = (after?["running"] as? [[String: Any]]) ?? []
        #expect(running.count == 5)
        #expect(try pending(restarted).count == 15)
        let liveIDs = Set(running.compactMap { $0["identifier"] as? String })
        let oldIDs = Set(restartedRuns.compactMap { $0["identifier"] as? String })
        #expect(liveIDs.isDisjoint(with: oldIDs))
        for id in ["local.a", "local.b"] { _ = try restarted.ctl("cancel", id) }
        restarted.stop()
        #expect(ProcessInspection.remaining(ofJob: "local.a").isEmpty && ProcessInspection.remaining(ofJob: "local.b").isEmpty)
    }
}

@Suite(.serialized) struct ForegroundFallbackTests {
    @Test func runIfStaleRunsOnlyWhenTheLastSuccessIsOlderThanMaxAge() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/fb.job", "[Job]\nIdentifier=local.fb\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let first = try agent.ctl("run-if-stale", "local.fb", "--max-age", "12h")
        #expect(first.status == 0)
        #expect(first.stdout.contains("stale (no success on record): started run r000001"))
        try agent.waitForLog("run r000001 of local.fb ended: success")
        let second = try agent.ctl("run-if-stale", "local.fb", "--max-age", "12h")
        #expect(second.stdout.hasPrefix("fresh: local.fb last succeeded"))
        let stats = try json(try agent.ctl("stats", "local.fb", "--json").stdout) as? [[String: Any]]
        #expect(stats?.first?["runCount"] as? Int == 1)
        #expect(stats?.first?["successCount"] as? Int == 1)
        let bad = try agent.ctl("run-if-stale", "local.fb", "--max-age", "soon")
        #expect(bad.status == 2)
    }

    @Test func listAndStatusSayWhatAJobWaitsFor() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/w.job", "[Job]\nIdentifier=local.w\nKind=refresh\nExec=\(sandbox.pluginPath)\nInterval=1h\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("of local.w ended: success")
        let list = try listedJobs(agent)
        #expect(list["local.w"]?["state"] as? String == "registered")
        #expect((list["local.w"]?["waiting"] as? String)?.hasPrefix("interval (earliest ") == true)
        #expect(try agent.ctl("list").stdout.contains("waiting: interval (earliest "))
        let status = try agent.ctl("status")
        #expect(status.stdout.contains("budget:   per manifest, used/limit today; refills 00:00\n  local  1/48\n"))
    }
}
