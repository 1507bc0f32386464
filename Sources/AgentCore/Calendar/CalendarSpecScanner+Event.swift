// SPDX-License-Identifier: Apache-2.0
/// The date, the time and the whole text: what follows the weekdays.
extension CalendarSpecScanner {
    /// `[YEAR-]MONTH-DAY` (or `~DAY`) if the text continues with a date; `@SECONDS` as well.
    /// True when the spec is complete (a timestamp names its own time).
    mutating func date(into spec: inout CalendarSpec) throws(Failure) -> Bool {
        guard let first = current else { return false }
        if (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") {
            var end = position
            while end < bytes.count, bytes[end] != Self.space { end += 1 }
            let word = TextBytes.quoted(String(decoding: bytes[position..<end], as: UTF8.self))
            throw Failure("weekday \(word) is not a weekday (Mon Tue Wed Thu Fri Sat Sun)")
        }
        if first == UInt8(ascii: "@") {
            position += 1
            let start = position
            var value: Int64 = 0
            while let byte = current, TextBytes.isDigit(byte) {
                value = value &* 10 &+ Int64(byte - 0x30)
                guard value < 1 << 40 else { throw Failure("timestamp is too large") }
                position += 1
            }
            guard position > start else { throw Failure("\"@\" must be followed by seconds since 1970 (@1700000000)") }
            let civil = CivilDateTime(localSeconds: value)
            func one(_ value: Int) -> [CalendarComponent] { [CalendarComponent(start: value, stop: nil, repeatStep: 0)] }
            spec.years = one(Int(civil.year))
            spec.months = one(civil.month)
            spec.days = one(civil.day)
            spec.hours = one(civil.hour)
            spec.minutes = one(civil.minute)
            spec.microseconds = one(civil.second * CalendarSpec.microsPerSecond)
            spec.zone = .utc
            return true
        }
        let start = position
        let firstPart = try chain("date")
        // Nothing more, or a colon: that was an hour, not a date.
        if current == nil || current == UInt8(ascii: ":") {
            position = start
            return false
        }
        var fromEnd = false
        switch current {
        case UInt8(ascii: "~"): fromEnd = true
        case UInt8(ascii: "-"): break
        default: throw Failure("date \(TextBytes.quoted(rest)) is not YEAR-MONTH-DAY or MONTH-DAY (*-*-01, 12-24, *-02~01)")
        }
        position += 1
        let secondPart = try chain(fromEnd ? "day" : "date")
        if current == nil || current == Self.space {
            skipSpaces()
            spec.months = firstPart
            spec.days = secondPart
            spec.daysFromEnd = fromEnd
            return false
        }
        guard !fromEnd else { throw Failure("\"~\" may only stand between the month and the day (*-02~01)") }
        switch current {
        case UInt8(ascii: "~"): fromEnd = true
        case UInt8(ascii: "-"): break
        default: throw Failure("date is not YEAR-MONTH-DAY or MONTH-DAY (*-*-01, 12-24, *-02~01)")
        }
        position += 1
        let thirdPart = try chain("day")
        guard current == nil || current == Self.space else {
            throw Failure("date has more than three parts; write YEAR-MONTH-DAY (*-*-01)")
        }
        skipSpaces()
        spec.years = firstPart
        spec.months = secondPart
        spec.days = thirdPart
        spec.daysFromEnd = fromEnd
        return false
    }

    /// `HOUR:MINUTE[:SECOND]`, or nothing (midnight).
    mutating func time(into spec: inout CalendarSpec) throws(Failure) {
        guard !atEnd else {
            spec.hours = [CalendarComponent(start: 0, stop: nil, repeatStep: 0)]
            spec.minutes = spec.hours
            spec.microseconds = spec.hours
            return
        }
        let start = position
        spec.hours = try chain("hour")
        guard current == UInt8(ascii: ":") else {
            position = start
            throw Failure("\(TextBytes.quoted(rest)) is not a weekday, a date (*-*-01) or a time (04:00)")
        }
        position += 1
        spec.minutes = try chain("minute")
        spec.microseconds = [CalendarComponent(start: 0, stop: nil, repeatStep: 0)]
        guard !atEnd else { return }
        guard current == UInt8(ascii: ":") else {
            throw Failure("time \(TextBytes.quoted(String(decoding: bytes[start...], as: UTF8.self))) is not "
                + "HOUR:MINUTE or HOUR:MINUTE:SECOND (04:00, 03:10:30)")
        }
        position += 1
        spec.microseconds = try chain("second", micro: true)
        guard atEnd else {
            throw Failure("time \(TextBytes.quoted(String(decoding: bytes[start...], as: UTF8.self))) is not "
                + "HOUR:MINUTE or HOUR:MINUTE:SECOND (04:00, 03:10:30)")
        }
    }

    /// Weekdays, date, time, in that order, and nothing after.
    mutating func event(into spec: inout CalendarSpec) throws(Failure) {
        spec.weekdays = try weekdays()
        if try date(into: &spec) {
            guard atEnd else { throw Failure("nothing may follow a timestamp but a zone") }
            return
        }
        try time(into: &spec)
    }
}
