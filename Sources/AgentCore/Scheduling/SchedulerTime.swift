// SPDX-License-Identifier: Apache-2.0
/// Wall-clock time in the scheduler: unix seconds with sub-second precision.
///
/// The core never reads a clock: the shell passes `now` with every event, and every time the
/// scheduler hands back (`nextDeadline`, `earliestBegin`, timeline entries) is one of these.
/// `Codable` as a single number (unix seconds).
public struct SchedulerTime: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// `time + span`. Spans come from config files, so absurd ones saturate rather than trap.
    public static func + (lhs: SchedulerTime, rhs: Duration) -> SchedulerTime {
        SchedulerTime(seconds: lhs.seconds + rhs.schedulerSeconds)
    }

    /// `time - span`.
    public static func - (lhs: SchedulerTime, rhs: Duration) -> SchedulerTime {
        SchedulerTime(seconds: lhs.seconds - rhs.schedulerSeconds)
    }

    /// The span from `earlier` to `self` (negative when `earlier` is later), clamped to what a
    /// `Duration` holds; a non-finite difference is zero.
    public func duration(since earlier: SchedulerTime) -> Duration {
        Duration.schedulerSpan(seconds: seconds - earlier.seconds)
    }

    public static func < (lhs: SchedulerTime, rhs: SchedulerTime) -> Bool {
        lhs.seconds < rhs.seconds
    }

    /// Unix seconds, e.g. `1796083200.5`; for logs and test failures (the shell formats times
    /// for people).
    public var description: String { "\(seconds)" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        seconds = try container.decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }
}

extension Duration {
    /// The span in seconds as a `Double` (attosecond precision lost beyond ~1e-7 s, which no
    /// scheduling decision needs).
    var schedulerSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A `Duration` of `seconds`, clamped to ±Int64.max seconds; NaN is zero.
    static func schedulerSpan(seconds value: Double) -> Duration {
        guard value.isFinite else {
            if value.isNaN { return .zero }
            return value > 0 ? DurationArithmetic.ceiling : DurationArithmetic.floor
        }
        // 9.2e18: beyond it Int64 conversion would trap.
        let limit = 9.2e18
        if value >= limit { return DurationArithmetic.ceiling }
        if value <= -limit { return DurationArithmetic.floor }
        let whole = value.rounded(.towardZero)
        let fraction = value - whole
        return Duration(secondsComponent: Int64(whole),
                        attosecondsComponent: Int64((fraction * 1e18).rounded()))
    }
}
