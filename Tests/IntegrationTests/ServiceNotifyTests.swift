// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// sd_notify as systemd sees it: a datagram socket named by NOTIFY_SOCKET.
@Suite(.serialized) struct ServiceNotifyTests {
    /// A bound AF_UNIX datagram socket standing in for systemd's notify socket.
    final class NotifySocket {
        let path: String
        let fd: Int32

        init(path: String) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        }

        deinit {
            close(fd)
            unlink(path)
        }

        /// Receives datagrams until one contains `text`, within `timeout` seconds.
        func waitFor(_ text: String, timeout: Double = 20) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 100) > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { continue }
                let message = String(decoding: buffer[0..<n], as: UTF8.self)
                if message.contains(text) { return message }
            }
            return nil
        }
    }

    @Test func theAgentTellsSystemdItIsReadyWithAStatusLineAndKeepsTheWatchdogFed() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/a.job", sandbox.jobFile("a"))
        let notify = try NotifySocket(path: sandbox.root + "/notify.sock")
        let agent = try AgentProcess(sandbox: sandbox, environment: [
            "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000",
        ])
        let ready = notify.waitFor("READY=1")
        #expect(ready?.contains("STATUS=1 job loaded, 0 running, 0 waiting") == true, "\(ready ?? "nothing")")
        #expect(notify.waitFor("WATCHDOG=1") != nil)
        // A config change updates the status line.
        try sandbox.write("jobs.d/b.job", sandbox.jobFile("b"))
        #expect(notify.waitFor("STATUS=2 jobs loaded") != nil)
        agent.stop()
        #expect(notify.waitFor("STOPPING=1", timeout: 5) != nil)
    }
}
