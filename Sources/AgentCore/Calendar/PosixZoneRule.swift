// SPDX-License-Identifier: Apache-2.0
/// A POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`), as a TZif footer gives the transitions after
/// its table: standard time, and optionally daylight time between two yearly dates. POSIX
/// offsets count west of UTC; ``utcOffset(at:)`` answers east, as every rule here does.
struct PosixZoneRule: Hashable, Sendable {
    enum DateRule: Hashable, Sendable {
        /// `Jn`: day 1…365, February 29 never counted.
        case julian(Int)
        /// `n`: day 0…365, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5: the last) of month `m`.
        case monthWeek(month: Int, week: Int, weekday: Int)
    }

    var standard: Int
    var daylight: Int?
    var start = DateRule.monthWeek(month: 3, week: 2, weekday: 0)
    var startTime = 7200
    var end = DateRule.monthWeek(month: 11, week: 1, weekday: 0)
    var endTime = 7200

    init?(_ text: String) {
        var scanner = Scanner(bytes: Array(text.utf8))
        guard scanner.name(), let standardWest = scanner.offset() else { return nil }
        standard = -standardWest
        if scanner.atEnd { return }
        guard scanner.name() else { return nil }
        daylight = standard + 3600
        if let west = scanner.offset() { daylight = -west }
        if scanner.atEnd { return }
        guard scanner.take(","), let start = scanner.date() else { return nil }
        self.start = start
        if scanner.take("/") { guard let time = scanner.offset() else { return nil }; startTime = time }
        guard scanner.take(","), let end = scanner.date() else { return nil }
        self.end = end
        if scanner.take("/") { guard let time = scanner.offset() else { return nil }; endTime = time }
        guard scanner.atEnd else { return nil }
    }

    func utcOffset(at unixSeconds: Int64) -> Int {
        guard let daylight else { return standard }
        let year = CivilDateTime.civil(fromDays: CivilDateTime.floorDivide(unixSeconds + Int64(standard), 86_400)).year
        // Daylight time starts at a wall time of standard time and ends at one of daylight time.
        let begins = Self.day(start, year) * 86_400 + Int64(startTime) - Int64(standard)
        let ends = Self.day(end, year) * 86_400 + Int64(endTime) - Int64(daylight)
        let inDaylight = begins < ends ? (unixSeconds >= begins && unixSeconds < ends)
            : !(unixSeconds >= ends && unixSeconds < begins)
        return inDaylight ? daylight : standard
    }

    /// The day number of `rule` in `year`.
    static func day(_ rule: DateRule, _ year: Int64) -> Int64 {
        let january1 = CivilDateTime.days(year: year, month: 1, day: 1)
        switch rule {
        case .julian(let n):
            let leapDay = CivilDateTime.isLeap(year) && n >= 60 ? 1 : 0
            return january1 + Int64(n - 1 + leapDay)
        case .zeroBased(let n):
            return january1 + Int64(n)
        case .monthWeek(let month, let week, let weekday):
            let first = CivilDateTime.days(year: year, month: month, day: 1)
            // CivilDateTime counts 0 = Monday; POSIX 0 = Sunday.
            let firstWeekday = (CivilDateTime.weekday(ofDay: first) + 1) % 7
            var day = first + Int64((weekday - firstWeekday + 7) % 7) + Int64((week - 1) * 7)
            let last = first + Int64(CivilDateTime.daysIn(month: month, year: year)) - 1
            while day > last { day -= 7 }
            return day
        }
    }

    struct Scanner {
        let bytes: [UInt8]
        var position = 0
        var atEnd: Bool { position >= bytes.count }

        mutating func take(_ character: Character) -> Bool {
            guard let ascii = character.asciiValue, position < bytes.count, bytes[position] == ascii else { return false }
            position += 1
            return true
        }

        /// `ABC` or `<+03>`.
        mutating func name() -> Bool {
            if take("<") {
                while position < bytes.count, bytes[position] != UInt8(ascii: ">") { position += 1 }
                return take(">")
            }
            let start = position
            while position < bytes.count, (bytes[position] | 0x20) >= 0x61, (bytes[position] | 0x20) <= 0x7A {
                position += 1
            }
            return position - start >= 3
        }

        mutating func number() -> Int? {
            let start = position
            var value = 0
            while position < bytes.count, TextBytes.isDigit(bytes[position]), position - start < 4 {
                value = value * 10 + Int(bytes[position] - 0x30)
                position += 1
            }
            return position > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds (also a rule's time of day, which may exceed 24 h).
        mutating func offset() -> Int? {
            let negative = take("-")
            if !negative { _ = take("+") }
            guard let hours = number() else { return nil }
            var seconds = hours * 3600
            if take(":") { guard let minutes = number() else { return nil }; seconds += minutes * 60 }
            if take(":") { guard let secs = number() else { return nil }; seconds += secs }
            return negative ? -seconds : seconds
        }

        mutating func date() -> DateRule? {
            if take("J") { return number().map(DateRule.julian) }
            if take("M") {
                guard let month = number(), take("."), let week = number(), take("."), let weekday = number(),
                      (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else { return nil }
                return .monthWeek(month: month, week: week, weekday: weekday)
            }
            return number().map(DateRule.zeroBased)
        }
    }
}
