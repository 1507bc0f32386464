// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The teardown sends SIGTERM then SIGCONT (DESIGN §5): a plugin that was stopped (SIGSTOP, a
/// debugger, ^Z) still handles SIGTERM within its grace period instead of sleeping until SIGKILL.
@Suite(.serialized) struct StoppedPluginTests {
    @Test func aStoppedPluginThatIsExpiredExitsThroughItsTermTrapWithinTheGracePeriod() throws {
        let sandbox = try Sandbox()
        let plugin = sandbox.root + "/stopped.sh"
        try "#!/bin/bash\ntrap 'echo TERM handled; exit 0' TERM\necho ready\nwhile :; do sleep 0.05; done\n"
            .write(toFile: plugin, atomically: false, encoding: .utf8)
        chmod(plugin, 0o755)
        // A grace period far longer than the test waits: only the trap can end the run in time.
        try sandbox.write("jobs.d/stopped.job", "[Job]\nIdentifier=local.stopped\nExec=\(plugin)\nGracePeriod=60s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.stopped").status == 0)
        try agent.waitForLog("[local.stopped r000001] ready")
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let pid = ((status?["running"] as? [[String: Any]])?.first?["pid"] as? Int).map(Int32.init) ?? 0
        #expect(pid > 0)
        kill(pid, SIGSTOP)
        #expect(ProcessInspection.waitUntilFrozen(pid), "the plugin did not stop")

        let expiredAt = Date()
        #expect(try agent.ctl("simulate", "expire", "local.stopped").status == 0)
        try agent.waitForLog("[local.stopped r000001] TERM handled", timeout: 20)
        try agent.waitForLog("run r000001 of local.stopped ended:", timeout: 20)
        #expect(Date().timeIntervalSince(expiredAt) < 20, "the run ended only at SIGKILL")
        let history = try json(try agent.ctl("history", "local.stopped", "--json").stdout) as? [[String: Any]]
        #expect(history?.first?["stopReason"] as? String == "expired(simulated)")
        #expect(history?.first?["exitStatus"] as? Int == 0)
        // json.md: `signal` is the last one the agent sent; the run exited by itself.
        #expect(history?.first?["signal"] as? Int == 15)
    }
}
