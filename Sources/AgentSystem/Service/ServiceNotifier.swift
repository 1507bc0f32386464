// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Glibc

/// Talks to the service manager through libsystemd's sd_notify: READY=1 once the agent answers,
/// a one-line STATUS=, STOPPING=1, and watchdog keep-alives. Outside systemd (no NOTIFY_SOCKET)
/// every call is a cheap no-op and the agent never wakes for the watchdog.
public struct ServiceNotifier: Sendable {
    /// Half the watchdog interval systemd asked for (WATCHDOG_USEC), or nil when it asked none.
    public let watchdogInterval: Duration?

    public init() {
        var usec: UInt64 = 0
        if sd_watchdog_enabled(0, &usec) > 0, usec > 0 {
            watchdogInterval = .microseconds(Int64(usec / 2))
        } else {
            watchdogInterval = nil
        }
    }

    public var isUnderServiceManager: Bool { getenv("NOTIFY_SOCKET") != nil }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func stopping() { send("STOPPING=1\nSTATUS=stopping") }
    public func watchdog() { send("WATCHDOG=1") }

    private func send(_ state: String) {
        guard isUnderServiceManager else { return }
        // One line per field; a newline inside the status text would start a bogus field.
        _ = sd_notify(0, state)
    }
}
