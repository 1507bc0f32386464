// SPDX-License-Identifier: Apache-2.0
import CShim
import Foundation
import Testing

/// DESIGN §10: a real agentd notices the wall clock being set (TFD_TIMER_CANCEL_ON_SET).
@Suite(.serialized) struct ClockStepIntegrationTests {
    @Test func settingTheWallClockIsNoticedAndMovesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/tick.job", "[Job]\nIdentifier=local.tick\nKind=refresh\nExec=\(sandbox.pluginPath)\nInterval=1h\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("of local.tick ended: success")
        // Set to the time it shows: a step of well under a microsecond that disturbs no one on
        // this machine, yet the kernel cancels every cancel-on-set timer.
        #expect(cshim_realtime_set_to_now() == 0, "clock_settime needs CAP_SYS_TIME (run as root)")
        try agent.waitForLog("wall clock set (a step of")
        #expect(!agent.logLines.contains { $0.contains("wall clock stepped") })
        #expect(agent.logLines.filter { $0.contains("of local.tick started") }.count == 1)
    }
}
