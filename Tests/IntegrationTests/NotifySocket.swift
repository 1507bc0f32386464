// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Glibc

/// A service manager's notification socket, for a test: a datagram socket bound at `path` that
/// a daemon started with `NOTIFY_SOCKET=path` sends `READY=1` (and `STATUS=…`) to. Waiting on it
/// is waiting for the daemon to say it is ready, not polling until it seems to be.
final class NotifySocket {
    private let socket: DatagramSocket
    var path: String { socket.path }

    init?(path: String) {
        guard let socket = DatagramSocket(path: path) else { return nil }
        self.socket = socket
    }

    /// Waits until a datagram carries the line `line` (e.g. `READY=1`), at most `seconds`;
    /// returns whether one did.
    func wait(for line: String, seconds: Double) -> Bool {
        socket.firstText(seconds: seconds) { $0.split(separator: "\n").contains(Substring(line)) } != nil
    }

    /// The first datagram within `seconds` that contains `text` (a whole notification, all its
    /// lines), or nil.
    func message(containing text: String, seconds: Double = 20) -> String? {
        socket.firstText(seconds: seconds) { $0.contains(text) }
    }
}
