// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// Brings a bus monitor back after its connection was lost (the bus restarted, dbus-daemon was
/// upgraded): tries again after 1 s, 2 s, 4 s … at most a minute apart, until it is up again.
/// A machine that never had a system bus is not retried (nothing is polled for a bus that is
/// not there); one that had it and lost it is. Loop-thread only.
final class BusReconnect {
    static let longestWait: Duration = .seconds(60)

    private let loop: EventLoop
    private var timer: TimerToken?
    private var attempts = 0
    private var wasUp = false
    /// When the next attempt is due, for `status`.
    private var nextAt: MonotonicInstant?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// The monitor is watching the bus (answers came): the next loss starts from 1 s again.
    /// Not merely connecting: a bus that accepts the socket but fails every handshake must not
    /// be retried every second.
    func up() {
        wasUp = true
        attempts = 0
        nextAt = nil
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    /// The monitor is unavailable: `restart` runs after the backoff if it had been up (an
    /// attempt that fails calls this again, waiting twice as long).
    func down(_ restart: @escaping () -> Void) {
        guard wasUp, timer == nil else { return }
        let wait = min(Self.longestWait, .seconds(1 << min(attempts, 6)))
        attempts += 1
        nextAt = loop.now + wait
        timer = loop.schedule(after: wait) { [unowned self] in
            self.timer = nil
            self.nextAt = nil
            restart()
        }
    }

    /// `; reconnecting in 4s (attempt 3)` while an attempt is due, else empty.
    var note: String {
        guard let nextAt else { return "" }
        let left = max(.zero, loop.now.duration(to: nextAt))
        return "; reconnecting in \(TimeSpanText.seconds(left)) (attempt \(attempts))"
    }
}

/// Whole seconds, rounded up, for people: `4s`.
enum TimeSpanText {
    static func seconds(_ span: Duration) -> String {
        let (whole, fraction) = span.components
        return "\(whole + (fraction > 0 ? 1 : 0))s"
    }
}
