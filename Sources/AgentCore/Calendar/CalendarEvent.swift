// SPDX-License-Identifier: Apache-2.0
/// A `Schedule=` calendar event (systemd.time(7) "Calendar Events"), in local time or in the
/// zone it names: the set of wall-clock times at which a job may begin. Parsed by
/// ``CalendarEventParser``; matched with ``nextMatch(after:rule:)``.
///
/// Each field is the sorted list of values it allows; `weekdays` is a 7-bit set (bit 0 Monday),
/// `years` nil for any year, `days` counted back from the month's last day when `daysFromEnd`
/// (`~`: 1 is the last day), seconds held in microseconds.
public struct CalendarEvent: Sendable, Hashable, CustomStringConvertible {
    /// The text as written, for messages and `agentctl list`.
    public var text: String
    var weekdays: UInt8 = 0x7F
    var years: [Int64]?
    var months: [Int] = Array(1...12)
    var days: [Int] = Array(1...31)
    var daysFromEnd = false
    var hours: [Int] = [0]
    var minutes: [Int] = [0]
    var microseconds: [Int] = [0]
    /// The zone named after the time; nil: the local zone (the rule `nextMatch` is given).
    public var zone: CalendarZone?

    public var description: String { text }

    /// Second values (at microsecond precision) an event may list in a minute: `*:*:0/0.01`
    /// would be 6000 list entries per job; systemd's own limit is 1 µs.
    static let maxSecondValues = 3600
    static let microsPerSecond: Int64 = 1_000_000
    static let microsPerDay: Int64 = 86_400 * microsPerSecond

    /// Years looked at before giving up when the event names no year: the Gregorian calendar
    /// repeats every 400 years, so an event that matches no date in 400 never matches. With
    /// years named, the search ends after the last of them (the parser allows up to 2199).
    static let searchYears: Int64 = 400

    /// Whether the event matches any date at all, from 1970 on (`*-02-30`, `2100-02-29` and
    /// `Mon 2026-12-08` match none). Matching is of wall-clock dates, so any zone answers.
    public var matchesSomeDate: Bool {
        nextMatch(after: SchedulerTime(seconds: -3 * 86_400), in: FixedUTCOffset.utc) != nil
    }

    /// The first instant strictly after `after` at which the event matches, in its own zone or
    /// else in the local time `rule` defines; nil when it never matches again (a past year, a
    /// date no weekday fits).
    ///
    /// Daylight saving: a local time that occurs twice matches once, at its first occurrence; a
    /// local time that does not exist matches at the first instant after the gap.
    public func nextMatch(after: SchedulerTime, rule localRule: some UTCOffsetRule) -> SchedulerTime? {
        guard let zone else { return nextMatch(after: after, in: localRule) }
        return nextMatch(after: after, in: zone.rule)
    }

    func nextMatch(after: SchedulerTime, in rule: some UTCOffsetRule) -> SchedulerTime? {
        guard after.seconds.isFinite, abs(after.seconds) < 1e13 else { return nil }
        let startMicros = Int64((after.seconds * 1e6).rounded(.down)) + 1
        let start = CivilDateTime.floorDivide(startMicros, Self.microsPerSecond)
        let localStart = LocalTime.local(start, rule)
        var day = CivilDateTime.floorDivide(localStart, CivilDateTime.secondsPerDay)
        var fromMicro = (localStart - day * CivilDateTime.secondsPerDay) * Self.microsPerSecond
            + (startMicros - start * Self.microsPerSecond)
        // Just after a transition, local times before the start's can still name instants at or
        // after it: the repeated hour of a fall back, the gap of a spring forward (which maps to
        // the transition). Look back by the shift then, keeping only instants at or after `start`.
        let shift = abs(rule.utcOffset(at: start - 2 * 3600) - rule.utcOffset(at: start))
        fromMicro -= Int64(min(shift, Int(CivilDateTime.secondsPerDay))) * Self.microsPerSecond
        if fromMicro < 0 {
            day -= 1
            fromMicro += Self.microsPerDay
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
                fromMicro = 0
                continue
            }
            if !months.contains(date.month) {
                day = date.month == 12 ? CivilDateTime.days(year: date.year + 1, month: 1, day: 1)
                    : CivilDateTime.days(year: date.year, month: date.month + 1, day: 1)
                fromMicro = 0
                continue
            }
            if matches(day: day) {
                var micro = fromMicro
                while let time = firstTime(atOrAfter: micro) {
                    let second = LocalTime.instant(
                        ofLocal: day * CivilDateTime.secondsPerDay + time / Self.microsPerSecond, rule)
                    let instant = second * Self.microsPerSecond + time % Self.microsPerSecond
                    if instant >= startMicros { return SchedulerTime(seconds: Double(instant) / 1e6) }
                    micro = time + 1
                }
            }
            day += 1
            fromMicro = 0
        }
    }

    /// Whether the local date `day` (days since 1970-01-01) is one of the event's.
    func matches(day: Int64) -> Bool {
        let weekday = CivilDateTime.weekday(ofDay: day)
        guard weekdays & (1 << weekday) != 0 else { return false }
        let date = CivilDateTime.civil(fromDays: day)
        if let years, !years.contains(date.year) { return false }
        guard months.contains(date.month) else { return false }
        if daysFromEnd {
            return days.contains(CivilDateTime.daysIn(month: date.month, year: date.year) - date.day + 1)
        }
        return days.contains(date.day)
    }

    /// The first microsecond of the day at or after `micro` the time fields allow.
    func firstTime(atOrAfter micro: Int64) -> Int64? {
        let second = Int(micro / Self.microsPerSecond)
        let h0 = second / 3600, m0 = second / 60 % 60
        let s0 = Int(micro - Int64(h0 * 3600 + m0 * 60) * Self.microsPerSecond)
        for hour in hours where hour >= h0 {
            for minute in minutes where hour > h0 || minute >= m0 {
                for sec in microseconds where hour > h0 || minute > m0 || sec >= s0 {
                    return Int64(hour * 3600 + minute * 60) * Self.microsPerSecond + Int64(sec)
                }
            }
        }
        return nil
    }
}
