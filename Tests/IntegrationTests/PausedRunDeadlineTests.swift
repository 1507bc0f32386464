// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import AgentTestSupport
import Foundation
import Testing

/// Issue 11 item 3, end to end: a paused run's MaxRuntime clock stops, so the SIGTERM time that
/// `agentctl status` shows moves by the pause, while the `AGENTD_DEADLINE` the plugin got at
/// spawn stays as it was (the earliest its SIGTERM can come). The rule itself is a virtual-time
/// test (RunLifecycleTests); this shows the daemon carries it out.
@Suite(.serialized) struct PausedRunDeadlineTests {
    @Test func aPauseMovesTheDeadlineStatusShowsButNotAGENTD_DEADLINE() throws {
        let sandbox = try Sandbox()
        let loop = try sandbox.script("steps", "echo \"given $AGENTD_DEADLINE\"\nwhile :; do echo tick; sleep 0.05; done\n")
        let machine = try PolicyTests.Machine(jobs: ["sync": PolicyTests.job(
            "sync", exec: loop, extra: "RequiresExternalPower=yes\nOnConditionLost=pause\nMaxRuntime=1h\n")])
        try machine.agent.waitForLog("] given ")
        let given = machine.agent.logLines.lazy.compactMap { line in
            line.range(of: "] given ").map { Int64(line[$0.upperBound...].trimmingCharacters(in: .whitespaces)) }
        }.first ?? nil
        let before = try deadline(machine)
        #expect(given != nil && given == before, "AGENTD_DEADLINE is the deadline status shows at first")

        try machine.unplug()
        try machine.agent.waitForLog("paused (external power)")
        _ = try runCommand("/bin/sleep", ["2.2"])  // the pause being measured, not a wait for an event
        try machine.plugIn()
        try machine.agent.waitForLog("resumed after")
        let after = try deadline(machine)
        let moved = (after ?? 0) - (before ?? 0)
        #expect(moved >= 2, "the deadline moved by the pause (\(moved) s)")
        #expect(moved < 60, "and not by more (\(moved) s)")
    }

    private func deadline(_ machine: PolicyTests.Machine) throws -> Int64? {
        let status = try json(try machine.agent.ctl("status", "--json").stdout) as? [String: Any]
        let run = (status?["running"] as? [[String: Any]])?.first
        return JSONInstant.milliseconds(run?["deadline"]).map { $0 / 1000 }
    }
}
