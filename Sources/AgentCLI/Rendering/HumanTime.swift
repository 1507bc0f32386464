// SPDX-License-Identifier: Apache-2.0
/// Times as people read them: `in 4 min`, `2 h ago`, `12:05`, `Mon 12:05`, `2026-11-30 12:05`;
/// durations `0.4 s`, `3 min 20 s`, `2 h 5 min`, `3 d 2 h`.
public enum HumanTime {
    /// A length of time to the second, in at most two units: `42 s`, `3 min 20 s`, `4 min`,
    /// `2 h 5 min`, `3 d 2 h`. Negative spans count as zero.
    public static func span(seconds: Int64) -> String {
        let seconds = max(0, seconds)
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return two(seconds / 60, "min", seconds % 60, "s")
        case ..<86_400: return two(seconds / 3600, "h", (seconds % 3600) / 60, "min")
        default: return two(seconds / 86_400, "d", (seconds % 86_400) / 3600, "h")
        }
    }

    /// How long a run took: tenths of a second under a minute (`0.4 s`, `12.0 s`), then `span`.
    public static func duration(milliseconds: Int64) -> String {
        let milliseconds = max(0, milliseconds)
        guard milliseconds < 60_000 else { return span(seconds: milliseconds / 1000) }
        let tenths = milliseconds / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// How long ago, in the largest whole unit: `just now` (under 5 s), `42 s ago`, `4 min ago`,
    /// `2 h ago`, `3 d ago`.
    public static func ago(seconds: Int64) -> String {
        seconds < 5 ? "just now" : coarse(seconds) + " ago"
    }

    /// How long until, in the largest whole unit: `in 42 s`, `in 4 min`, `in 2 h`, `in 3 d`;
    /// `now` once it is due.
    public static func until(seconds: Int64) -> String {
        seconds <= 0 ? "now" : "in " + coarse(seconds)
    }

    /// A local time of day as people write it, as close as needed to be unambiguous:
    /// `12:05` today, `Mon 12:05` within six days either side of today, `2026-11-30 12:05` otherwise.
    public static func clockTime(_ epochSeconds: Int64, clock: DisplayClock) -> String {
        let days = clock.localDay(epochSeconds) - clock.localDay(clock.nowSeconds)
        switch days {
        case 0: return clock.format(epochSeconds, "%H:%M")
        case -6...6: return clock.format(epochSeconds, "%a %H:%M")
        default: return clock.format(epochSeconds, "%Y-%m-%d %H:%M")
        }
    }

    /// When something happened: relative while recent (`just now`, `42 s ago`, `2 h ago`, for
    /// anything under `recentSeconds`, 3 h by default), the local clock time after that
    /// (`12:05`, `Mon 12:05`, `2026-11-30 12:05`). Future times show as clock times.
    public static func moment(_ epochSeconds: Int64, clock: DisplayClock, recentSeconds: Int64 = 3 * 3600) -> String {
        let age = clock.nowSeconds - epochSeconds
        if age >= 0 && age < recentSeconds { return ago(seconds: age) }
        if age < 0 && age > -5 { return "just now" }  // clocks a little apart
        return clockTime(epochSeconds, clock: clock)
    }

    /// A length of time in its largest whole unit: `42 s`, `4 min`, `2 h`, `3 d`.
    public static func roughSpan(seconds: Int64) -> String {
        coarse(max(0, seconds))
    }

    private static func coarse(_ seconds: Int64) -> String {
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min"
        case ..<86_400: return "\(seconds / 3600) h"
        default: return "\(seconds / 86_400) d"
        }
    }

    private static func two(_ major: Int64, _ majorUnit: String, _ minor: Int64, _ minorUnit: String) -> String {
        minor == 0 ? "\(major) \(majorUnit)" : "\(major) \(majorUnit) \(minor) \(minorUnit)"
    }
}
