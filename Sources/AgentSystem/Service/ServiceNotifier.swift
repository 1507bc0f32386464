// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Glibc

/// Talks to the service manager in sd_notify's protocol (a datagram to `$NOTIFY_SOCKET`, sent
/// without libsystemd: `csystemd_notify`): READY=1 once the agent answers, a one-line STATUS=,
/// STOPPING=1, and watchdog keep-alives. Outside systemd (no NOTIFY_SOCKET) every call is a cheap
/// no-op and the agent never wakes for the watchdog.
public struct ServiceNotifier: Sendable {
    /// Half the watchdog interval systemd asked for (WATCHDOG_USEC), or nil when it asked none.
    public let watchdogInterval: Duration?

    public init() {
        let usec = getenv("WATCHDOG_USEC").map { String(cString: $0) }
        let pid = getenv("WATCHDOG_PID").map { String(cString: $0) }
        watchdogInterval = Self.watchdogInterval(usec: usec, pid: pid, ownPID: getpid())
    }

    /// sd_watchdog_enabled(3)'s rule: WATCHDOG_USEC a positive number of microseconds, and
    /// WATCHDOG_PID, when set, this process; the keep-alive interval is half of it.
    static func watchdogInterval(usec: String?, pid: String?, ownPID: pid_t) -> Duration? {
        guard let usec, let micros = UInt64(usec), micros > 0, micros < UInt64(Int64.max) else { return nil }
        if let pid {
            guard let target = pid_t(pid), target == ownPID else { return nil }
        }
        return .microseconds(Int64(micros / 2))
    }

    public var isUnderServiceManager: Bool { getenv("NOTIFY_SOCKET") != nil }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func stopping() { send("STOPPING=1\nSTATUS=stopping") }
    public func watchdog() { send("WATCHDOG=1") }

    private func send(_ state: String) {
        guard let socket = getenv("NOTIFY_SOCKET") else { return }
        // One line per field; a newline inside the status text would start a bogus field.
        let bytes = Array(state.utf8)
        _ = bytes.withUnsafeBytes { raw in csystemd_notify(socket, raw.baseAddress, raw.count) }
    }
}
