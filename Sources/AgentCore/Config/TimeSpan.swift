// SPDX-License-Identifier: Apache-2.0
/// systemd time spans (`systemd.time(7)`): `30s`, `5min`, `2h`, `1d`, `1h30min`, `1h 30min`,
/// `500ms`, `1w`, `1.5h`; a number without a unit is seconds; `0` is zero.
///
/// Units, as systemd spells them (case-sensitive: `M` is a month, `m` a minute):
/// `us usec µs`, `ms msec`, `s sec second seconds`, `m min minute minutes`, `h hr hour hours`,
/// `d day days`, `w week weeks`, `M month months` (30.44 d), `y year years` (365.25 d).
/// Negative spans and unknown units are rejected. Keywords such as `none` and `infinity` are the
/// business of the individual keys, not of this parser.
public enum TimeSpan {
    /// Examples quoted by error messages.
    public static let examples = "30s, 5min, 12h, 1d"

    private static let microsecond: Int64 = 1
    private static let millisecond: Int64 = 1_000
    private static let second: Int64 = 1_000_000
    private static let minute: Int64 = 60 * second
    private static let hour: Int64 = 60 * minute
    private static let day: Int64 = 24 * hour
    private static let week: Int64 = 7 * day
    private static let month: Int64 = 2_629_800 * second
    private static let year: Int64 = 31_557_600 * second

    /// In systemd's order: the first suffix that matches wins, so `ms` must come after `min`,
    /// `months`, `M` and `msec` but before `m`.
    private static let units: [(suffix: [UInt8], multiplier: Int64)] = [
        ("seconds", second), ("second", second), ("sec", second), ("s", second),
        ("minutes", minute), ("minute", minute), ("min", minute),
        ("months", month), ("month", month), ("M", month),
        ("msec", millisecond), ("ms", millisecond), ("m", minute),
        ("hours", hour), ("hour", hour), ("hr", hour), ("h", hour),
        ("days", day), ("day", day), ("d", day),
        ("weeks", week), ("week", week), ("w", week),
        ("years", year), ("year", year), ("y", year),
        ("usec", microsecond), ("us", microsecond), ("μs", microsecond), ("µs", microsecond),
    ].map { (Array($0.0.utf8), $0.1) }

    /// The span, or nil when `text` is not a valid time span.
    public static func parse(_ text: String) -> Duration? {
        parseMicroseconds(text).map { Duration.microseconds($0) }
    }

    /// The span in microseconds (systemd's resolution), or nil.
    static func parseMicroseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        let count = bytes.count
        var index = 0
        var total: Int64 = 0
        var sawComponent = false
        while true {
            while index < count, TextBytes.isWhitespace(bytes[index]) { index += 1 }
            if index == count { break }
            // A component: digits, optional fraction, optional whitespace, optional unit.
            guard TextBytes.isDigit(bytes[index]) else { return nil }
            var whole: Int64 = 0
            while index < count, TextBytes.isDigit(bytes[index]) {
                let (times10, o1) = whole.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.addingReportingOverflow(Int64(bytes[index] - 0x30))
                if o1 || o2 { return nil }
                whole = next
                index += 1
            }
            var fraction: ArraySlice<UInt8> = []
            if index < count, bytes[index] == TextBytes.dot {
                let start = index + 1
                index = start
                while index < count, TextBytes.isDigit(bytes[index]) { index += 1 }
                guard index > start else { return nil }
                fraction = bytes[start..<index]
            }
            while index < count, TextBytes.isWhitespace(bytes[index]) { index += 1 }
            var multiplier = second
            for unit in units where matches(bytes, at: index, unit.suffix) {
                multiplier = unit.multiplier
                index += unit.suffix.count
                break
            }
            let (scaled, o3) = whole.multipliedReportingOverflow(by: multiplier)
            if o3 { return nil }
            var part = scaled
            var digitWeight = multiplier
            for digit in fraction {
                digitWeight /= 10
                part += digitWeight * Int64(digit - 0x30)
            }
            let (sum, o4) = total.addingReportingOverflow(part)
            if o4 { return nil }
            total = sum
            sawComponent = true
        }
        return sawComponent ? total : nil
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ suffix: [UInt8]) -> Bool {
        guard index + suffix.count <= bytes.count else { return false }
        for offset in 0..<suffix.count where bytes[index + offset] != suffix[offset] {
            return false
        }
        return true
    }

    /// `format` as one word (`2d12h`, not `2d 12h`): for a span among others in one value, such
    /// as `Retry=exponential 1h 2d12h`, which splits on spaces.
    public static func formatWord(_ duration: Duration) -> String {
        String(format(duration).filter { $0 != " " })
    }

    /// A span as systemd prints it (`1h 30min`, `500ms`, `0`), for messages and `agentctl`.
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || attoseconds < 0 { return "-" + format(.zero - duration) }
        // Clamp absurd spans instead of trapping: the largest systemd span is ~292 000 years.
        let cappedSeconds = min(seconds, Int64.max / second - 1)
        var remaining = cappedSeconds * second + attoseconds / 1_000_000_000_000
        if remaining == 0 { return "0" }
        var parts: [String] = []
        let steps: [(String, Int64)] = [
            ("w", week), ("d", day), ("h", hour), ("min", minute), ("s", second),
            ("ms", millisecond), ("us", microsecond),
        ]
        for (suffix, size) in steps where remaining >= size {
            parts.append("\(remaining / size)\(suffix)")
            remaining %= size
        }
        return parts.joined(separator: " ")
    }
}
