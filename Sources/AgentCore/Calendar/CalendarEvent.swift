// SPDX-License-Identifier: Apache-2.0
/// A `Schedule=` calendar event (systemd.time(7) "Calendar Events"), in local time: the set of
/// wall-clock times at which a job may begin. Parsed by ``CalendarEventParser``; matched with
/// ``nextMatch(after:rule:)``.
///
/// Each field is the sorted list of values it allows; `weekdays` is a 7-bit set (bit 0 Monday)
/// and `years` nil for any year.
public struct CalendarEvent: Sendable, Hashable, CustomStringConvertible {
    /// The text as written, for messages and `agentctl list`.
    public var text: String
    var weekdays: UInt8 = 0x7F
    var years: [Int64]?
    var months: [Int] = Array(1...12)
    var days: [Int] = Array(1...31)
    var hours: [Int] = [0]
    var minutes: [Int] = [0]
    var seconds: [Int] = [0]

    public var description: String { text }

    /// Years looked at before giving up when the event names no year: the Gregorian calendar
    /// repeats every 400 years, so an event that matches no date in 400 never matches. With
    /// years named, the search ends after the last of them (the parser allows up to 2199).
    static let searchYears: Int64 = 400

    /// The first instant strictly after `after` at which the event matches, in the local time
    /// `rule` defines; nil when it never matches again (a past year, a date no weekday fits).
    ///
    /// Daylight saving: a local time that occurs twice matches once, at its first occurrence; a
    /// local time that does not exist matches at the first instant after the gap.
    public func nextMatch(after: SchedulerTime, rule: some UTCOffsetRule) -> SchedulerTime? {
        guard after.seconds.isFinite, abs(after.seconds) < 1e13 else { return nil }
        let start = Int64(after.seconds.rounded(.down)) + 1
        let localStart = LocalTime.local(start, rule)
        var day = CivilDateTime.floorDivide(localStart, CivilDateTime.secondsPerDay)
        var fromSecond = Int(localStart - day * CivilDateTime.secondsPerDay)
        // Just after a transition, local times before the start's can still name instants at or
        // after it: the repeated hour of a fall back, the gap of a spring forward (which maps to
        // the transition). Look back by the shift then, keeping only instants at or after `start`.
        let shift = abs(rule.utcOffset(at: start - 2 * 3600) - rule.utcOffset(at: start))
        fromSecond -= min(shift, Int(CivilDateTime.secondsPerDay))
        if fromSecond < 0 {
            day -= 1
            fromSecond += Int(CivilDateTime.secondsPerDay)
        }
        let startYear = CivilDateTime.civil(fromDays: day).year
        let lastYear = years?.last ?? startYear + Self.searchYears
        while true {
            // Whole years and months the event excludes are skipped, not walked day by day:
            // `2060-01-01` or `Mon *-02-29` across 2100 are found in a few thousand steps.
            let date = CivilDateTime.civil(fromDays: day)
            if date.year > lastYear { return nil }
            if let years, !years.contains(date.year) {
                guard let next = years.first(where: { $0 > date.year }) else { return nil }
                day = CivilDateTime.days(year: next, month: 1, day: 1)
                fromSecond = 0
                continue
            }
            if !months.contains(date.month) {
                day = date.month == 12 ? CivilDateTime.days(year: date.year + 1, month: 1, day: 1)
                    : CivilDateTime.days(year: date.year, month: date.month + 1, day: 1)
                fromSecond = 0
                continue
            }
            if matches(day: day) {
                var second = fromSecond
                while let time = firstTime(atOrAfter: second) {
                    let instant = LocalTime.instant(
                        ofLocal: day * CivilDateTime.secondsPerDay + Int64(time), rule)
                    if instant >= start { return SchedulerTime(seconds: Double(instant)) }
                    second = time + 1
                }
            }
            day += 1
            fromSecond = 0
        }
    }

    /// Whether the local date `day` (days since 1970-01-01) is one of the event's.
    func matches(day: Int64) -> Bool {
        let weekday = CivilDateTime.weekday(ofDay: day)
        guard weekdays & (1 << weekday) != 0 else { return false }
        let date = CivilDateTime.civil(fromDays: day)
        if let years, !years.contains(date.year) { return false }
        return months.contains(date.month) && days.contains(date.day)
    }

    /// The first second of the day (0..<86400) at or after `second` the time fields allow.
    func firstTime(atOrAfter second: Int) -> Int? {
        let h0 = second / 3600, m0 = second / 60 % 60, s0 = second % 60
        for hour in hours where hour >= h0 {
            for minute in minutes where hour > h0 || minute >= m0 {
                for sec in seconds where hour > h0 || minute > m0 || sec >= s0 {
                    return hour * 3600 + minute * 60 + sec
                }
            }
        }
        return nil
    }
}
