// SPDX-License-Identifier: Apache-2.0

/// How late a timer may fire (sd-event's "accuracy"). A timer with leeway fires at a point of a
/// coarse grid inside `[deadline, deadline + leeway]`, so that timers with slack set at different
/// moments come due at the same instant and wake the loop once between them; and a timer with
/// leeway whose deadline has passed fires whenever the loop wakes for another timer.
public struct TimerLeeway: Hashable, Sendable, Comparable {
    public let duration: Duration

    public init(_ duration: Duration) {
        self.duration = max(duration, .zero)
    }

    /// Fires at its deadline: for deadlines a person or a plugin waits on (SIGKILL after the grace).
    public static let none = TimerLeeway(.zero)
    /// For throttles and batched writes (sd-event's default accuracy).
    public static let quarterSecond = TimerLeeway(.milliseconds(250))
    /// For retries and periodic work counted in seconds.
    public static let second = TimerLeeway(.seconds(1))

    public static func < (a: TimerLeeway, b: TimerLeeway) -> Bool { a.duration < b.duration }

    /// Coarsest first: a point on the coarsest grid that fits inside the window is shared by the
    /// most timers.
    private static let grids: [UInt64] = [60_000_000_000, 10_000_000_000, 1_000_000_000, 250_000_000]

    /// When a timer due at `deadline` (CLOCK_MONOTONIC ns) wakes the loop: the latest point of the
    /// coarsest grid inside its window, or the window's end when no grid point fits.
    public func wakeup(for deadline: UInt64) -> UInt64 {
        let slack = MonotonicInstant.clampedNanoseconds(of: duration)
        guard slack > 0 else { return deadline }
        let (latest, overflow) = deadline.addingReportingOverflow(UInt64(slack))
        guard !overflow else { return deadline }
        for grid in Self.grids {
            let point = latest - latest % grid
            if point >= deadline { return point }
        }
        return latest
    }
}
