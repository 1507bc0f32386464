// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What happens after a run: retries, chaining; and a state directory that cannot be used.
@Suite(.serialized) struct RunFollowUpTests {
    private func writePlugin(_ sandbox: Sandbox, _ name: String, _ body: String) throws -> String {
        let path = sandbox.root + "/\(name).sh"
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test func aFailedRunIsRetriedAfterItsBackoffWithReasonRetry() throws {
        let sandbox = try Sandbox()
        // Fails the first time, succeeds the second.
        let plugin = try writePlugin(sandbox, "flaky", "if [ -e \"$STATE_DIRECTORY/tried\" ]; then exit 0; fi\ntouch \"$STATE_DIRECTORY/tried\"\nexit 2\n")
        try sandbox.write("jobs.d/flaky.job", "[Job]\nIdentifier=local.flaky\nExec=\(plugin)\nRetry=exponential 1s 1h\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.flaky").status == 0)
        try agent.waitForLog("run r000001 of local.flaky ended: failure(exit 2)")
        try agent.waitForLog("run r000002 of local.flaky ended: success")
        let history = try json(try agent.ctl("history", "local.flaky", "--json").stdout) as? [[String: Any]] ?? []
        #expect(history.map { $0["reason"] as? String } == ["retry", "simulated"])
        #expect(history.map { $0["stopReason"] as? String } == ["success", "failure(exit 2)"])
    }

    @Test func aSuccessLaunchesItsOnSuccessJobWithReasonChained() throws {
        let sandbox = try Sandbox()
        let first = try writePlugin(sandbox, "first", "exit 0\n")
        let second = try writePlugin(sandbox, "second", "exit 0\n")
        try sandbox.write("jobs.d/first.job", "[Job]\nIdentifier=local.first\nExec=\(first)\nOnSuccess=local.second\n")
        try sandbox.write("jobs.d/second.job", "[Job]\nIdentifier=local.second\nExec=\(second)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.first").status == 0)
        try agent.waitForLog("of local.second ended: success")
        let history = try json(try agent.ctl("history", "local.second", "--json").stdout) as? [[String: Any]] ?? []
        #expect(history.first?["reason"] as? String == "chained")
    }

    @Test func aPluginMadeNonExecutableAfterRegistrationEndsSpawnFailed() throws {
        let sandbox = try Sandbox()
        let plugin = try writePlugin(sandbox, "noexec", "exit 0\n")
        try sandbox.write("jobs.d/noexec.job", "[Job]\nIdentifier=local.noexec\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        chmod(plugin, 0o644)
        #expect(try agent.ctl("simulate", "launch", "local.noexec").status == 0)
        try agent.waitForLog("of local.noexec ended: spawn-failed(\(plugin) is not executable; run chmod +x \(plugin))")
    }

    @Test func launchingAJobThatIsAlreadyRunningIsRefusedWithWhatToDo() throws {
        let sandbox = try Sandbox()
        let plugin = try writePlugin(sandbox, "long", "exec sleep 300\n")
        try sandbox.write("jobs.d/long.job", "[Job]\nIdentifier=local.long\nExec=\(plugin)\nGracePeriod=1s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.long").status == 0)
        let second = try agent.ctl("simulate", "launch", "local.long")
        #expect(second.status == 5)
        #expect(second.stderr.contains("already running as r000001"))
        #expect(try agent.ctl("cancel", "local.long").status == 0)
        try agent.waitForLog("of local.long ended: cancelled")
    }

    @Test func anUnknownOrNotPermittedJobCannotBeLaunched() throws {
        let sandbox = try Sandbox()
        let plugin = try writePlugin(sandbox, "stray", "exit 0\n")
        try sandbox.write("jobs.d/stray.job", "[Job]\nIdentifier=com.stray.job\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let unknown = try agent.ctl("simulate", "launch", "local.nothing")
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no job local.nothing"))
        let stray = try agent.ctl("simulate", "launch", "com.stray.job")
        #expect(stray.status == 3)
        #expect(stray.stderr.contains("not-permitted"))
    }

    @Test func anUnusableStateDirectoryIsShownAndTheAgentKeepsRunningAndRecovers() throws {
        let sandbox = try Sandbox()
        // A file where the state directory should be: nothing can be created there.
        try "not a directory".write(toFile: sandbox.stateDirectory, atomically: false, encoding: .utf8)
        let agent = try AgentProcess(sandbox: sandbox)
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let problem = status?["stateError"] as? String
        #expect(problem?.contains("state directory \(sandbox.stateDirectory) is not usable") == true)
        #expect(try agent.ctl("status").stdout.contains("state error:"))
        #expect(try agent.ctl("history").status == 5)

        // Fixed by the administrator; SIGHUP (or the periodic retry) picks it up.
        try FileManager.default.removeItem(atPath: sandbox.stateDirectory)
        let mark = agent.logLines.count
        kill(agent.process.processIdentifier, SIGHUP)
        try agent.waitForLog("SIGHUP", after: mark)
        let fixed = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        #expect(fixed?["stateError"] == nil)
        #expect(try agent.ctl("history").status == 0)
    }

    @Test func runsLiveWhenTheAgentIsKilledAreRecordedAgentRestartAndTheirProcessesKilled() throws {
        let sandbox = try Sandbox()
        let plugin = try writePlugin(sandbox, "survivor", "sleep 300 &\nexec sleep 300\n")
        try sandbox.write("jobs.d/survivor.job", "[Job]\nIdentifier=local.survivor\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.survivor").status == 0)
        try agent.waitForLog("run r000001 of local.survivor started")
        kill(agent.process.processIdentifier, SIGKILL)
        agent.process.waitUntilExit()
        #expect(!ProcessInspection.processes(of: "local.survivor").isEmpty, "the plugin outlives a SIGKILLed agent")

        let restarted = try AgentProcess(sandbox: sandbox)
        try restarted.waitForLog("run r000001 of local.survivor was live when the agent stopped")
        #expect(ProcessInspection.remaining(of: "local.survivor").isEmpty, "leftovers are killed at restart")
        let history = try json(try restarted.ctl("history", "--json").stdout) as? [[String: Any]] ?? []
        #expect(history.first?["stopReason"] as? String == "agent-restart")
        // Numbering continues after the restart.
        #expect(try restarted.ctl("simulate", "launch", "local.survivor").stdout.contains("r000002"))
        #expect(try restarted.ctl("cancel", "local.survivor").status == 0)
        try restarted.waitForLog("of local.survivor ended: cancelled")
    }

    @Test func stoppingTheAgentStopsItsRunsThroughTheGracePeriod() throws {
        let sandbox = try Sandbox()
        let plugin = try writePlugin(sandbox, "polite", "trap 'exit 0' TERM\nwhile :; do sleep 0.05; done\n")
        try sandbox.write("jobs.d/polite.job", "[Job]\nIdentifier=local.polite\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.polite").status == 0)
        try agent.waitForLog("run r000001 of local.polite started")
        agent.stop()
        #expect(agent.process.terminationStatus == 0)
        #expect(agent.logLines.contains { $0.contains("of local.polite ended: agent-restart") })
        #expect(ProcessInspection.remaining(of: "local.polite").isEmpty)
    }
}

/// DESIGN §10 (issue: SIGTERM expired the live run, then started the queued one, so a second
/// SIGTERM was needed and systemd's stop ended in SIGKILL).
@Suite struct StoppingWithQueuedWorkTests {
    @Test func oneSIGTERMStopsTheAgentAndQueuedSubmissionsRunAfterTheRestart() throws {
        let sandbox = try Sandbox()
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=1\n")
        let long = try sandbox.script("long", "trap 'exit 0' TERM\nwhile :; do echo PROGRESS=1/2; sleep 0.2; done\n")
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(long)\nGracePeriod=2s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("submit", "local.export", "--title", "First").status == 0)
        try agent.waitForLog("run r000001 of local.export started (submitted")
        #expect(try agent.ctl("submit", "local.export.second", "--title", "Second", "--", "--flag").status == 0)
        agent.stop()  // one SIGTERM, and waits for the exit
        #expect(agent.process.terminationStatus == 0)
        #expect(!agent.logLines.contains { $0.contains("local.export.second started") }, "nothing new starts while stopping")

        let restarted = try AgentProcess(sandbox: sandbox)
        try restarted.waitForLog("run r000002 of local.export.second started (submitted")
        let status = try json(try restarted.ctl("status", "--json").stdout) as? [String: Any]
        let running = status?["running"] as? [[String: Any]] ?? []
        #expect(running.first?["title"] as? String == "Second", "the queued submission kept its title")
        #expect(try restarted.ctl("cancel", "r000002").status == 0)
        try restarted.waitForLog("run r000002 of local.export.second ended: cancelled")
    }
}
