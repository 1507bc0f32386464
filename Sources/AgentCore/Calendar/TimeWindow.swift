// SPDX-License-Identifier: Apache-2.0
/// A `Window=START-END` of local time of day in which a job may start, e.g. `01:00-05:00`;
/// `22:00-06:00` wraps midnight. START is inside, END is not. A run already going when the
/// window closes is not stopped: the window gates starts only.
public struct TimeWindow: Sendable, Hashable, CustomStringConvertible {
    /// Seconds after local midnight, `0..<86400`.
    public var start: Int
    /// Seconds after local midnight, `1...86400` (`24:00` is the end of the day).
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    public var description: String { "\(Self.format(start))-\(Self.format(end))" }

    public static let examples = "01:00-05:00, 22:00-06:00 (may wrap midnight)"

    /// How long it is open, in seconds (across midnight when it wraps).
    public var duration: Int { start < end ? end - start : 86_400 - start + end }

    /// Whether the local second of the day `second` is inside.
    public func contains(secondOfDay second: Int) -> Bool {
        start < end ? (start <= second && second < end) : (second >= start || second < end)
    }

    public static func parse(_ text: String) -> Result<TimeWindow, CalendarEventError> {
        func failure(_ why: String) -> Result<TimeWindow, CalendarEventError> {
            .failure(CalendarEventError(message: "\(TextBytes.quoted(text)) is not a window: \(why); "
                + "write START-END in local time, e.g. \(examples)"))
        }
        let halves = text.split(separator: "-", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return failure("it needs one - between two times") }
        guard let start = timeOfDay(halves[0], allowEndOfDay: false) else {
            return failure("start \(TextBytes.quoted(String(halves[0]))) is not a time from 00:00 to 23:59")
        }
        guard let end = timeOfDay(halves[1], allowEndOfDay: true) else {
            return failure("end \(TextBytes.quoted(String(halves[1]))) is not a time from 00:00 to 24:00")
        }
        guard start != end % 86_400 else {
            return failure("it starts where it ends; to allow any time, remove Window=")
        }
        return .success(TimeWindow(start: start, end: end))
    }

    /// `HH:MM` or `HH:MM:SS` as seconds after midnight; `24:00` only as an end.
    static func timeOfDay(_ text: Substring, allowEndOfDay: Bool) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var values: [Int] = []
        for part in parts {
            guard (1...2).contains(part.utf8.count), part.utf8.allSatisfy(TextBytes.isDigit) else { return nil }
            values.append(part.utf8.reduce(0) { $0 * 10 + Int($1 - 0x30) })
        }
        let hour = values[0], minute = values[1], second = values.count == 3 ? values[2] : 0
        guard minute < 60, second < 60 else { return nil }
        let total = hour * 3600 + minute * 60 + second
        if allowEndOfDay, total == 86_400 { return total }
        return hour < 24 ? total : nil
    }

    static func format(_ second: Int) -> String {
        let hour = second / 3600, minute = second / 60 % 60, rest = second % 60
        func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(pad(hour)):\(pad(minute))" + (rest == 0 ? "" : ":\(pad(rest))")
    }
}

/// Several windows: a job may start when any one is open.
enum TimeWindows {
    /// `time` itself when a window is open then (or there are none), otherwise the instant the
    /// next one opens.
    static func nextOpen(_ windows: [TimeWindow], atOrAfter time: SchedulerTime,
                         rule: some UTCOffsetRule) -> SchedulerTime
    {
        guard !windows.isEmpty, time.seconds.isFinite, abs(time.seconds) < 1e13 else { return time }
        let whole = Int64(time.seconds.rounded(.down))
        let local = LocalTime.local(whole, rule)
        let day = CivilDateTime.floorDivide(local, CivilDateTime.secondsPerDay)
        let second = Int(local - day * CivilDateTime.secondsPerDay)
        if windows.contains(where: { $0.contains(secondOfDay: second) }) { return time }
        var earliest: Int64?
        for window in windows {
            let openDay = window.start > second ? day : day + 1
            let opens = LocalTime.instant(ofLocal: openDay * CivilDateTime.secondsPerDay + Int64(window.start), rule)
            if earliest.map({ opens < $0 }) ?? true { earliest = opens }
        }
        guard let earliest else { return time }
        return max(time, SchedulerTime(seconds: Double(earliest)))
    }

    /// The first instant after `time` at which none of `windows` is open, when one is open at
    /// `time` (a chain of touching windows counts as one); nil when none is.
    static func nextClose(_ windows: [TimeWindow], after time: SchedulerTime,
                          rule: some UTCOffsetRule) -> SchedulerTime?
    {
        guard !windows.isEmpty, time.seconds.isFinite, abs(time.seconds) < 1e13 else { return nil }
        var instant = Int64(time.seconds.rounded(.down))
        var closes: Int64?
        // Each step leaves one window; more steps than windows means they cover the whole day.
        for _ in 0...windows.count {
            let local = LocalTime.local(instant, rule)
            let day = CivilDateTime.floorDivide(local, CivilDateTime.secondsPerDay)
            let second = Int(local - day * CivilDateTime.secondsPerDay)
            guard let open = windows.first(where: { $0.contains(secondOfDay: second) }) else { return closes.map { SchedulerTime(seconds: Double($0)) } }
            let endDay = open.end > second ? day : day + 1
            instant = LocalTime.instant(ofLocal: endDay * CivilDateTime.secondsPerDay + Int64(open.end), rule)
            closes = instant
        }
        return nil
    }
}
