// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// The one way agentd and agentctl name a local time for people: `14:05` today, `Wed 14:05` in
/// the coming week, `2026-12-24 14:05` further off (or in the past beyond today). A time without
/// its date is only ever today's, so `interval (earliest 07:54)` is never tomorrow's 07:54.
public enum LocalClockText {
    /// `seconds` (since the epoch) as seen at `now`, in the system's time zone.
    public static func text(_ seconds: Double, now: Double) -> String {
        text(seconds, now: now, breakDown: local)
    }

    /// The same with another zone's broken-down time (agentctl's display clock; tests use UTC
    /// through `gmtime_r`).
    public static func text(_ seconds: Double, now: Double, breakDown: (Double) -> tm) -> String {
        let time = breakDown(held(seconds))
        let today = breakDown(held(now))
        let clock = twoDigits(time.tm_hour) + ":" + twoDigits(time.tm_min)
        let days = dayNumber(time) - dayNumber(today)
        if days == 0 { return clock }
        if days > 0, days < 7 { return weekdays[Int(time.tm_wday)] + " " + clock }
        return "\(time.tm_year + 1900)-\(twoDigits(time.tm_mon + 1))-\(twoDigits(time.tm_mday)) " + clock
    }

    /// Time of day only, `14:05` (timelines print their day once, above).
    public static func timeOfDay(_ seconds: Double) -> String {
        let time = local(seconds)
        return twoDigits(time.tm_hour) + ":" + twoDigits(time.tm_min)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Held to years 1…9999: a stored time past them is shown at the edge, never a trap.
    static func held(_ seconds: Double) -> Double {
        seconds.isFinite ? seconds.clamped(to: RFC3339.writableSeconds) : 0
    }

    private static func local(_ seconds: Double) -> tm {
        var time = time_t(held(seconds).rounded(.down))
        var parts = tm()
        localtime_r(&time, &parts)
        return parts
    }

    /// Day number of the local date (days since 1970-01-01).
    private static func dayNumber(_ parts: tm) -> Int64 {
        CivilDateTime.days(year: Int64(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    private static func twoDigits(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

private extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
