// SPDX-License-Identifier: Apache-2.0
/// Why a `Schedule=` value is not a calendar event; `message` names the value, the part that is
/// wrong, and the forms that are valid.
public struct CalendarEventError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Parses systemd.time(7) calendar events in the forms admins write:
/// `[WEEKDAYS] [[YEAR-]MONTH-DAY] [HOUR:MINUTE[:SECOND]]`, each field `*`, a number, a range
/// `A..B`, a repetition `A/STEP` (or `A..B/STEP`, `*/STEP`), or a comma list of those; weekdays
/// `Mon`…`Sun` (or full names) with ranges `Mon..Fri` (or `Mon-Fri`) and lists `Mon,Wed`; and the
/// shorthands `minutely hourly daily weekly monthly quarterly semiannually yearly annually`.
/// A missing time is 00:00:00; a missing date is every day.
///
/// One addition to systemd: a day-or-longer shorthand may name its time, `daily 03:00`
/// (= `*-*-* 03:00`), `weekly 03:00` (= `Mon 03:00`), `monthly 04:00` (= `*-*-01 04:00`).
/// Not supported (refused with a message): time zones (`Schedule=` is local time), fractions
/// of a second, `~` (days counted from the month's end).
public enum CalendarEventParser {
    /// Shown in every parse error.
    public static let validForms = "daily, Mon..Fri 09:00, *-*-01 04:00, *-*-* 00/6:00 (systemd.time(7))"

    public static func parse(_ text: String) -> Result<CalendarEvent, CalendarEventError> {
        do throws(Detail) {
            return .success(try event(text).sharingFieldStorage())
        } catch {
            return .failure(CalendarEventError(message: "\(TextBytes.quoted(text)) is not a calendar event: "
                + "\(error.text); valid forms: \(validForms)"))
        }
    }

    /// What is wrong, before the value and the valid forms are put around it.
    struct Detail: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    static func event(_ text: String) throws(Detail) -> CalendarEvent {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first else { throw Detail("it is empty") }
        var event = CalendarEvent(text: text)
        if let shorthand = Shorthand(rawValue: TextBytes.asciiLowercased(first)) {
            shorthand.apply(to: &event)
            guard words.count > 1 else { return event }
            guard shorthand.takesTime, words.count == 2, words[1].contains(":") else {
                throw Detail(shorthand.takesTime
                    ? "after \"\(first)\" only a time may follow (\(first) 03:00)"
                    : "\"\(first)\" stands alone (write *-*-* *:15 for a minute of each hour)")
            }
            try readTime(words[1], into: &event)
            return event
        }
        var rest = words[...]
        if let word = rest.first, word.first?.isLetter == true, !word.contains(":") {
            event.weekdays = try weekdays(word)
            rest = rest.dropFirst()
        }
        if let word = rest.first, word.contains("-"), !word.contains(":") {
            try readDate(word, into: &event)
            rest = rest.dropFirst()
        }
        if let word = rest.first, word.contains(":") {
            try readTime(word, into: &event)
            rest = rest.dropFirst()
        }
        if let extra = rest.first {
            if extra.first?.isLetter == true {
                throw Detail("\(TextBytes.quoted(extra)) is not supported here: time zones cannot be named, "
                    + "Schedule= is in local time")
            }
            throw Detail("\(TextBytes.quoted(extra)) is not a weekday, a date (*-*-01) or a time (04:00)")
        }
        try checkDateOccurs(event)
        return event
    }

    // MARK: Parts

    static func weekdays(_ word: String) throws(Detail) -> UInt8 {
        var mask: UInt8 = 0
        for item in word.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = item.contains("..") ? item.split(separator: ".", omittingEmptySubsequences: true)
                                             : item.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count) else {
                throw Detail("weekday \(TextBytes.quoted(String(item))) is not a weekday or a range (Mon..Fri)")
            }
            let low = try weekday(bounds[0])
            let high = try weekday(bounds[bounds.count - 1])
            // A range may wrap the week: Sat..Mon is Sat, Sun, Mon.
            var day = low
            while true {
                mask |= 1 << day
                if day == high { break }
                day = (day + 1) % 7
            }
        }
        return mask
    }

    static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let weekdayFullNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    static func weekday(_ name: Substring) throws(Detail) -> Int {
        let lower = TextBytes.asciiLowercased(String(name))
        if let index = weekdayNames.firstIndex(of: lower) ?? weekdayFullNames.firstIndex(of: lower) {
            return index
        }
        throw Detail("weekday \(TextBytes.quoted(String(name))) is not a weekday (Mon Tue Wed Thu Fri Sat Sun)")
    }

    static func readDate(_ word: String, into event: inout CalendarEvent) throws(Detail) {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        switch parts.count {
        case 3:
            let years = try field(parts[0], "year", 1970...2199)
            event.years = years.count == 2199 - 1970 + 1 ? nil : years.map(Int64.init)
            event.months = try field(parts[1], "month", 1...12)
            event.days = try field(parts[2], "day", 1...31)
        case 2:
            event.months = try field(parts[0], "month", 1...12)
            event.days = try field(parts[1], "day", 1...31)
        default:
            throw Detail("date \(TextBytes.quoted(word)) is not YEAR-MONTH-DAY or MONTH-DAY (*-*-01, 12-24)")
        }
    }

    static func readTime(_ word: String, into event: inout CalendarEvent) throws(Detail) {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else {
            throw Detail("time \(TextBytes.quoted(word)) is not HOUR:MINUTE or HOUR:MINUTE:SECOND (04:00, 03:10:30)")
        }
        event.hours = try field(parts[0], "hour", 0...23)
        event.minutes = try field(parts[1], "minute", 0...59)
        if parts.count == 3 {
            if parts[2].contains(".") {
                throw Detail("second \(TextBytes.quoted(String(parts[2]))): fractions of a second are not supported")
            }
            event.seconds = try field(parts[2], "second", 0...59)
        } else {
            event.seconds = [0]
        }
    }

    /// One field: `*`, `N`, `A..B`, `A/STEP`, `A..B/STEP`, `*/STEP`, or a comma list of those;
    /// the sorted values it allows.
    static func field(_ text: Substring, _ name: String, _ range: ClosedRange<Int>) throws(Detail) -> [Int] {
        var values = Set<Int>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            values.formUnion(try fieldItem(item, name, range))
        }
        return values.sorted()
    }

    static func fieldItem(_ item: Substring, _ name: String, _ range: ClosedRange<Int>) throws(Detail) -> [Int] {
        guard !item.isEmpty else { throw Detail("\(name) has an empty list item") }
        let slash = item.split(separator: "/", omittingEmptySubsequences: false)
        guard slash.count <= 2 else { throw Detail("\(name) \(TextBytes.quoted(String(item))) has more than one /") }
        var step = 1
        if slash.count == 2 {
            step = try number(slash[1], "\(name) step", 1...range.upperBound)
        }
        let base = slash[0]
        var low = range.lowerBound, high = range.upperBound
        if base != "*" {
            if let (first, last) = rangeBounds(base) {
                low = try number(first, name, range)
                high = try number(last, name, range)
                guard low <= high else {
                    throw Detail("\(name) range \(TextBytes.quoted(String(base))) runs backwards; write the smaller first")
                }
            } else {
                low = try number(base, name, range)
                // A plain number is one value; with a step it repeats to the field's end.
                if slash.count == 1 { high = low }
            }
        }
        return Array(stride(from: low, through: high, by: step))
    }

    /// `A..B` as `(A, B)`; nil without `..`.
    static func rangeBounds(_ text: Substring) -> (Substring, Substring)? {
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == ".", next < text.endIndex, text[next] == "." {
                return (text[..<index], text[text.index(after: next)...])
            }
            index = next
        }
        return nil
    }

    static func number(_ text: Substring, _ name: String, _ range: ClosedRange<Int>) throws(Detail) -> Int {
        let quoted = TextBytes.quoted(String(text))
        guard !text.isEmpty, text.utf8.count <= 4, text.utf8.allSatisfy(TextBytes.isDigit) else {
            throw Detail("\(name) \(quoted) is not a number")
        }
        let value = text.utf8.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard range.contains(value) else {
            throw Detail("\(name) \(quoted) is out of range (\(range.lowerBound)..\(range.upperBound))")
        }
        return value
    }

    /// `*-02-30` and the like never match: refused rather than a job that never runs.
    static func checkDateOccurs(_ event: CalendarEvent) throws(Detail) {
        let occurs = event.months.contains { month in
            let longest = CivilDateTime.daysIn(month: month, year: 2000)  // leap: Feb has 29
            return event.days.contains { $0 <= longest }
        }
        guard occurs else { throw Detail("the date never occurs: none of its days exist in its months") }
    }
}

/// `daily` and the other shorthands, as systemd normalizes them.
enum Shorthand: String {
    case minutely, hourly, daily, weekly, monthly, quarterly, semiannually, yearly, annually

    /// A day or longer: `daily 03:00` may name the time.
    var takesTime: Bool { self != .minutely && self != .hourly }

    func apply(to event: inout CalendarEvent) {
        event.hours = [0]
        event.minutes = [0]
        event.seconds = [0]
        switch self {
        case .minutely:
            event.hours = Array(0...23)
            event.minutes = Array(0...59)
        case .hourly:
            event.hours = Array(0...23)
        case .daily:
            break
        case .weekly:
            event.weekdays = 1  // Monday
        case .monthly:
            event.days = [1]
        case .quarterly:
            event.months = [1, 4, 7, 10]
            event.days = [1]
        case .semiannually:
            event.months = [1, 7]
            event.days = [1]
        case .yearly, .annually:
            event.months = [1]
            event.days = [1]
        }
    }
}
