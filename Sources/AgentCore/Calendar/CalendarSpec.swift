// SPDX-License-Identifier: Apache-2.0
/// One item of a calendar field as written: `START`, `START..STOP`, `START/REPEAT` or
/// `START..STOP/REPEAT` (systemd.time(7)). `stop` is nil without `..`, `repeat` 0 without a
/// step; a range without a step repeats by one unit. Seconds are held in microseconds.
struct CalendarComponent: Sendable, Hashable, Comparable {
    var start: Int
    var stop: Int?
    var repeatStep: Int

    static func < (a: Self, b: Self) -> Bool {
        (a.start, a.stop ?? -1, a.repeatStep) < (b.start, b.stop ?? -1, b.repeatStep)
    }
}

/// A calendar event's syntax, field by field, before it is expanded into the value lists
/// ``CalendarEvent`` matches with: what `agentctl calendar` prints as the normalized form, and
/// what systemd's rules of validity are checked on. A nil field is `*`.
struct CalendarSpec: Sendable, Hashable {
    enum Zone: Sendable, Hashable {
        case local
        case utc
        case named(String)
    }

    /// Bit 0 Monday … bit 6 Sunday; 0 is every day (as is 0x7F).
    var weekdays: UInt8 = 0
    var years: [CalendarComponent]?
    var months: [CalendarComponent]?
    var days: [CalendarComponent]?
    /// `~`: days count back from the month's last (`~01` is the last day).
    var daysFromEnd = false
    var hours: [CalendarComponent]?
    var minutes: [CalendarComponent]?
    /// Microseconds; nil is never left here after parsing (`*` is `0/1s`).
    var microseconds: [CalendarComponent]?
    var zone: Zone = .local

    static let microsPerSecond = 1_000_000
    static let everySecond = [CalendarComponent(start: 0, stop: nil, repeatStep: microsPerSecond)]

    /// systemd's normalization: two-digit years are 19xx/20xx, a step that cannot repeat once
    /// and a range of one value become that value, items are sorted and duplicates dropped.
    mutating func normalize() {
        if weekdays == 0x7F { weekdays = 0 }
        if days == nil { daysFromEnd = false }
        years = years.map { $0.map(Self.fullYear) }
        years = years.map(Self.normalized)
        months = months.map(Self.normalized)
        days = days.map(Self.normalized)
        hours = hours.map(Self.normalized)
        minutes = minutes.map(Self.normalized)
        microseconds = microseconds.map(Self.normalized)
    }

    /// `12` is 2012, `89` is 1989.
    static func fullYear(_ item: CalendarComponent) -> CalendarComponent {
        func full(_ year: Int) -> Int { year < 70 ? year + 2000 : year < 100 ? year + 1900 : year }
        var item = item
        item.start = full(item.start)
        item.stop = item.stop.map(full)
        return item
    }

    static func normalized(_ items: [CalendarComponent]) -> [CalendarComponent] {
        var result: [CalendarComponent] = []
        for var item in items {
            if let stop = item.stop, stop > item.start, item.repeatStep > 0 {
                let trimmed = stop - (stop - item.start) % item.repeatStep
                item.stop = trimmed
                if item.start + item.repeatStep > trimmed || trimmed == item.start {
                    item.stop = nil
                    item.repeatStep = 0
                }
            } else if item.stop == item.start {
                item.stop = nil
                item.repeatStep = 0
            }
            result.append(item)
        }
        var unique: [CalendarComponent] = []
        for item in result.sorted() where unique.last != item { unique.append(item) }
        return unique
    }

    /// Why the spec is not valid as systemd judges it, or nil: every value in its field's range
    /// (`~` days within 28 of the end), a step shorter than the field, and each step able to
    /// repeat at least once (`*-*-31/2` cannot).
    func invalidField() -> String? {
        let fields: [(String, [CalendarComponent]?, ClosedRange<Int>, Bool)] = [
            ("year", years, 1970...2199, false), ("month", months, 1...12, false),
            ("day", days, daysFromEnd ? 1...28 : 1...31, daysFromEnd), ("hour", hours, 0...23, false),
            ("minute", minutes, 0...59, false),
            ("second", microseconds, 0...(60 * Self.microsPerSecond - 1), false),
        ]
        for (name, items, range, fromEnd) in fields {
            for item in items ?? [] where !Self.isValid(item, range, fromEnd: fromEnd) {
                if let stop = item.stop, stop < item.start {
                    return "\(name) range \(TextBytes.quoted(Self.format([item], width: 1, micro: name == "second"))) "
                        + "runs backwards; write the smaller first"
                }
                return "\(name) \(TextBytes.quoted(Self.format([item], width: 2, micro: name == "second"))) "
                    + "is out of range (\(range.lowerBound)..\(name == "second" ? 59 : range.upperBound))"
                    + (item.repeatStep > 0 || item.stop != nil ? " or its step never repeats" : "")
            }
        }
        return nil
    }

    static func isValid(_ item: CalendarComponent, _ range: ClosedRange<Int>, fromEnd: Bool) -> Bool {
        guard range.contains(item.start), item.repeatStep <= range.upperBound - range.lowerBound else { return false }
        if let stop = item.stop {
            return range.contains(stop) && item.start + item.repeatStep <= stop
        }
        return fromEnd ? item.start - item.repeatStep >= range.lowerBound
            : item.start + item.repeatStep <= range.upperBound
    }
}

extension CalendarSpec {
    /// The normalized form as `systemd-analyze calendar` prints it: `Mon..Fri *-*-* 09:00:00`.
    var normalizedText: String {
        var text = ""
        if weekdays != 0 { text += Self.formatWeekdays(weekdays) + " " }
        text += Self.format(years, width: 4) + "-" + Self.format(months, width: 2)
        text += (daysFromEnd ? "~" : "-") + Self.format(days, width: 2)
        text += " " + Self.format(hours, width: 2) + ":" + Self.format(minutes, width: 2)
        text += ":" + Self.format(microseconds, width: 2, micro: true)
        switch zone {
        case .local: break
        case .utc: text += " UTC"
        case .named(let name): text += " " + name
        }
        return text
    }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Runs of three days or more as `A..C`, of two as `A,B`.
    static func formatWeekdays(_ bits: UInt8) -> String {
        var parts: [String] = []
        var day = 0
        while day < 7 {
            guard bits & (1 << day) != 0 else { day += 1; continue }
            var last = day
            while last + 1 < 7, bits & (1 << (last + 1)) != 0 { last += 1 }
            switch last - day {
            case 0: parts.append(weekdayNames[day])
            case 1: parts.append(weekdayNames[day] + "," + weekdayNames[last])
            default: parts.append(weekdayNames[day] + ".." + weekdayNames[last])
            }
            day = last + 1
        }
        return parts.joined(separator: ",")
    }

    static func format(_ items: [CalendarComponent]?, width: Int, micro: Bool = false) -> String {
        guard let items else { return "*" }
        let unit = micro ? microsPerSecond : 1
        if micro, items == everySecond { return "*" }
        func number(_ value: Int) -> String {
            let digits = String(value / unit)
            var text = String(repeating: "0", count: max(0, width - digits.utf8.count)) + digits
            if value % unit > 0 { text += "." + fraction(value % unit) }
            return text
        }
        return items.map { item in
            var text = number(item.start)
            if let stop = item.stop, stop > 0 { text += ".." + number(stop) }
            if item.repeatStep > 0, !(item.stop.map { $0 > 0 } == true && item.repeatStep == unit) {
                text += "/" + String(item.repeatStep / unit)
                if item.repeatStep % unit > 0 { text += "." + fraction(item.repeatStep % unit) }
            }
            return text
        }.joined(separator: ",")
    }

    /// Six digits, as systemd prints fractions of a second.
    static func fraction(_ micros: Int) -> String {
        let digits = String(micros)
        return String(repeating: "0", count: max(0, 6 - digits.utf8.count)) + digits
    }
}
