// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim

/// The real local-time rules (TZ, else `/etc/localtime`) as the pure core needs them: the UTC
/// offset now and the next transition within `lookAhead` (see `LocalCalendar`).
///
/// The C library knows the rules but lists no transitions, so they are found by asking it for the
/// offset a day apart and then narrowing to the second — about 400 `localtime_r` calls, a
/// millisecond, done only at start, after a transition passed, after a clock step and when the
/// zone changed. Two transitions less than a day apart would be seen as one; no zone has them.
public enum LocalZone {
    /// How far ahead to look for the next transition: past any DST season.
    public static let lookAhead: Int64 = 400 * day

    private static let day: Int64 = 86_400

    /// Re-reads the zone (`tzset`: glibc's `localtime_r` alone would keep a replaced
    /// `/etc/localtime`'s old rules) and describes it from `unixSeconds` on.
    public static func calendar(at unixSeconds: Int64) -> LocalCalendar {
        _ = cshim_utc_offset_at(unixSeconds, 1)
        return calendar(at: unixSeconds) { Int(cshim_utc_offset_at($0, 0)) }
    }

    /// The UTC offset at `unixSeconds` under the zone as it is now (re-read).
    public static func currentOffset(at unixSeconds: Int64) -> Int {
        Int(cshim_utc_offset_at(unixSeconds, 1))
    }

    /// The calendar of a zone given as its offset function (tests pass a rule of their own).
    public static func calendar(at now: Int64, offset: (Int64) -> Int) -> LocalCalendar {
        let current = offset(now)
        var probe = now
        while probe - now < lookAhead {
            let next = probe + day
            guard offset(next) == current else {
                let at = firstChange(after: probe, upTo: next, from: current, offset: offset)
                let transition = LocalCalendar.Transition(at: SchedulerTime(seconds: Double(at)),
                                                          utcOffsetSeconds: offset(at))
                return LocalCalendar(utcOffsetSeconds: current, nextTransition: transition)
            }
            probe = next
        }
        return LocalCalendar(utcOffsetSeconds: current)
    }

    /// The first second in `(low, high]` whose offset differs from `current` (it does at `high`).
    private static func firstChange(after low: Int64, upTo high: Int64, from current: Int,
                                    offset: (Int64) -> Int) -> Int64
    {
        var low = low, high = high
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(middle) == current { low = middle } else { high = middle }
        }
        return high
    }
}
