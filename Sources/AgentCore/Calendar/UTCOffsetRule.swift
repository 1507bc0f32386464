// SPDX-License-Identifier: Apache-2.0
/// The local-time rules of a zone as a value: the UTC offset in force at each instant. The core
/// never reads a timezone; the shell hands one of these in (the system zone through
/// `localtime_r`), and tests use fixed offsets or a rule with one transition.
///
/// A rule is all `Schedule=` and `Window=` need to handle daylight saving: the offset before and
/// after a transition tell where local times are missing (spring forward) or repeated (fall back).
public protocol UTCOffsetRule: Sendable {
    /// Seconds east of UTC in force at `unixSeconds` (`+3600` for CET, `+7200` for CEST).
    func utcOffset(at unixSeconds: Int64) -> Int
}

/// One offset for all time: UTC, or a zone without daylight saving.
public struct FixedUTCOffset: UTCOffsetRule, Hashable {
    public var seconds: Int

    public init(seconds: Int) {
        self.seconds = seconds
    }

    public static let utc = FixedUTCOffset(seconds: 0)

    public func utcOffset(at unixSeconds: Int64) -> Int { seconds }
}

/// Local wall-clock seconds ↔ UTC instants under a rule.
enum LocalTime {
    /// Seconds since 1970-01-01 00:00 local of the instant `unixSeconds`.
    static func local(_ unixSeconds: Int64, _ rule: some UTCOffsetRule) -> Int64 {
        unixSeconds + Int64(rule.utcOffset(at: unixSeconds))
    }

    /// The instant a local wall-clock time names. A time that occurs twice (fall back) is its
    /// first occurrence; a time that does not exist (spring forward) is the first instant after
    /// the gap, the transition itself — so `02:30` on the spring-forward day still runs, at 03:00
    /// new time, as cron does (systemd skips it to the next day: systemd/systemd#5595).
    static func instant(ofLocal local: Int64, _ rule: some UTCOffsetRule) -> Int64 {
        // Offsets in force a day either side: a rule changes at most once in that span.
        let before = Int64(rule.utcOffset(at: local - CivilDateTime.secondsPerDay))
        let after = Int64(rule.utcOffset(at: local + CivilDateTime.secondsPerDay))
        let candidates = [local - before, local - after].filter {
            Int64(rule.utcOffset(at: $0)) == local - $0
        }
        if let first = candidates.min() { return first }
        // Neither offset fits: the local time falls in a gap. The transition lies between the
        // two readings; find its first second.
        return transition(from: min(local - before, local - after), to: max(local - before, local - after),
                          newOffset: after, rule)
    }

    /// The first second in `[low, high]` at which `newOffset` is in force.
    private static func transition(from low: Int64, to high: Int64, newOffset: Int64,
                                   _ rule: some UTCOffsetRule) -> Int64
    {
        var low = low, high = high
        guard Int64(rule.utcOffset(at: high)) == newOffset else { return high }
        while low < high {
            let middle = low + (high - low) / 2
            if Int64(rule.utcOffset(at: middle)) == newOffset { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
