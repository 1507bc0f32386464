// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// sd_notify as systemd sees it: a datagram socket named by NOTIFY_SOCKET.
@Suite(.serialized) struct ServiceNotifyTests {
    @Test func theAgentTellsSystemdItIsReadyWithAStatusLineAndKeepsTheWatchdogFed() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/a.job", sandbox.jobFile("a"))
        let notify = try #require(NotifySocket(path: sandbox.root + "/notify.sock"))
        let agent = try AgentProcess(sandbox: sandbox, environment: [
            "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000",
        ])
        let ready = notify.message(containing: "READY=1")
        #expect(ready?.contains("STATUS=1 job loaded, 0 running, 0 waiting") == true, "\(ready ?? "nothing")")
        #expect(notify.message(containing: "WATCHDOG=1") != nil)
        // A config change updates the status line.
        try sandbox.write("jobs.d/b.job", sandbox.jobFile("b"))
        #expect(notify.message(containing: "STATUS=2 jobs loaded") != nil)
        agent.stop()
        #expect(notify.message(containing: "STOPPING=1", seconds: 5) != nil)
    }
}
