// SPDX-License-Identifier: Apache-2.0
/// Why a `Schedule=` value is not a calendar event; `message` names the value, the part that is
/// wrong, and the forms that are valid.
public struct CalendarEventError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A calendar event with the normalized form `systemd-analyze calendar` would print for it.
public struct AnalyzedCalendarEvent: Sendable, Hashable {
    public var event: CalendarEvent
    public var normalizedText: String
}

/// Parses systemd.time(7) calendar events in full (``CalendarSpecScanner`` reads the grammar):
/// weekdays, dates with `~` (days from the month's end), times with fractions of a second, a
/// zone (`UTC` or one `zones` knows) as the last word, `@UNIXSECONDS`, and every named shorthand
/// (`minutely hourly daily weekly monthly quarterly semiannually semi-annually biannually
/// bi-annually yearly annually anually`). What systemd refuses is refused (`Mon..`,
/// `Mon...Fri`, `Sat..Mon`, `*-*-31/2`, `*/2`). A missing time is 00:00:00; a missing date
/// is every day.
///
/// Differences, documented in docs/configuration.md: a day-or-longer shorthand may name its
/// time, `daily 03:00` (= `*-*-* 03:00`), `weekly 03:00` (= `Mon 03:00`), `monthly 04:00`
/// (= `*-*-01 04:00`); refused where systemd accepts: a date that never occurs (`*-02-30`),
/// more than 3600 second values in a minute (`*:*:0/0.01`), and the local zone's abbreviation
/// as a zone (`12:00 CEST` with TZ=Europe/Berlin) unless a zone file has that name.
public enum CalendarEventParser {
    /// Shown in every parse error.
    public static let validForms = "daily, Mon..Fri 09:00, *-*-01 04:00, *-*-* 00/6:00, *-02~01, "
        + "12:00 Europe/Berlin (systemd.time(7))"

    public static func parse(_ text: String, zones: ZoneLookup = .none) -> Result<CalendarEvent, CalendarEventError> {
        analyze(text, zones: zones).map(\.event)
    }

    /// The event and its normalized form (`agentctl calendar`).
    public static func analyze(_ text: String, zones: ZoneLookup = .none)
        -> Result<AnalyzedCalendarEvent, CalendarEventError>
    {
        do throws(Detail) {
            var spec = try spec(text, zones: zones)
            spec.normalize()
            if let invalid = spec.invalidField() { throw Detail(invalid) }
            let event = try expand(spec, text: text, zones: zones)
            return .success(AnalyzedCalendarEvent(event: event.sharingFieldStorage(),
                                                  normalizedText: spec.normalizedText))
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

    static func spec(_ text: String, zones: ZoneLookup) throws(Detail) -> CalendarSpec {
        guard !text.isEmpty else { throw Detail("it is empty") }
        var body = Substring(text)
        var zone = CalendarSpec.Zone.local
        if TextBytes.asciiLowercased(String(body.suffix(4))) == " utc" {
            zone = .utc
            body = body.dropLast(4)
        } else if let space = body.lastIndex(of: " ") {
            let word = body[body.index(after: space)...]
            if ZoneLookup.isPlausibleName(word) {
                guard zones.rule(String(word)) != nil else {
                    let before = body[..<space]
                    if let shorthand = Shorthand(TextBytes.asciiLowercased(String(before))) {
                        throw Detail(shorthand.takesTime ? "after \"\(before)\" only a time may follow (\(before) 03:00)"
                            : "\"\(before)\" stands alone (write *-*-* *:15 for a minute of each hour)")
                    }
                    var scanner = CalendarSpecScanner(word)
                    if let (length, _) = scanner.weekdayName(), length == word.utf8.count || (try? scanner.weekdays()) != nil {
                        throw Detail("weekdays come first (Mon 12:00), not \(TextBytes.quoted(String(word)))")
                    }
                    throw Detail("time zone \(TextBytes.quoted(String(word))) is not known (no zone file of that "
                        + "name; write UTC or a name as in /usr/share/zoneinfo, Europe/Berlin)")
                }
                zone = .named(String(word))
                body = body[..<space]
            }
        }
        guard !body.isEmpty else { throw Detail("it names only a zone") }
        var spec: CalendarSpec
        do throws(CalendarSpecScanner.Failure) {
            if let shorthand = try shorthandSpec(body) {
                spec = shorthand
            } else {
                spec = CalendarSpec()
                var scanner = CalendarSpecScanner(body)
                try scanner.event(into: &spec)
            }
        } catch {
            throw Detail(error.text)
        }
        if spec.zone == .local { spec.zone = zone } else if zone != .local, zone != .utc {
            throw Detail("a timestamp is in UTC; it takes no other zone")
        }
        return spec
    }

    /// A shorthand, alone or (an addition to systemd) a day-or-longer one with a time.
    static func shorthandSpec(_ body: Substring) throws(CalendarSpecScanner.Failure) -> CalendarSpec? {
        let words = body.split(separator: " ", maxSplits: 1)
        guard let first = words.first, let shorthand = Shorthand(TextBytes.asciiLowercased(String(first))) else {
            return nil
        }
        var spec = shorthand.spec
        guard words.count == 2 else { return first.count == body.count ? spec : nil }
        guard shorthand.takesTime, words[1].contains(":") else {
            throw CalendarSpecScanner.Failure(shorthand.takesTime
                ? "after \"\(first)\" only a time may follow (\(first) 03:00)"
                : "\"\(first)\" stands alone (write *-*-* *:15 for a minute of each hour)")
        }
        var scanner = CalendarSpecScanner(words[1])
        try scanner.time(into: &spec)
        return spec
    }

    /// The value lists the matcher walks.
    static func expand(_ spec: CalendarSpec, text: String, zones: ZoneLookup) throws(Detail) -> CalendarEvent {
        var event = CalendarEvent(text: text)
        event.weekdays = spec.weekdays == 0 ? 0x7F : spec.weekdays
        if let years = spec.years {
            event.years = values(years, upTo: 2199).map(Int64.init)
        }
        event.months = spec.months.map { values($0, upTo: 12) } ?? Array(1...12)
        event.days = spec.days.map { values($0, upTo: 31, fromEnd: spec.daysFromEnd) } ?? Array(1...31)
        event.daysFromEnd = spec.daysFromEnd
        event.hours = spec.hours.map { values($0, upTo: 23) } ?? Array(0...23)
        event.minutes = spec.minutes.map { values($0, upTo: 59) } ?? Array(0...59)
        let micros = spec.microseconds ?? CalendarSpec.everySecond
        guard count(micros, upTo: 60 * CalendarSpec.microsPerSecond - 1) <= CalendarEvent.maxSecondValues else {
            throw Detail("seconds: more than \(CalendarEvent.maxSecondValues) times in a minute are not supported")
        }
        event.microseconds = values(micros, upTo: 60 * CalendarSpec.microsPerSecond - 1)
        switch spec.zone {
        case .local: event.zone = nil
        case .utc: event.zone = .utc
        case .named(let name):
            guard let rule = zones.rule(name) else { throw Detail("time zone \(TextBytes.quoted(name)) is not known") }
            event.zone = CalendarZone(name: name, rule: rule)
        }
        if !spec.daysFromEnd { try checkDateOccurs(event) }
        return event
    }

    static func count(_ items: [CalendarComponent], upTo last: Int) -> Int {
        items.reduce(0) { total, item in
            guard item.repeatStep > 0 else { return total + 1 }
            return total + ((item.stop ?? last) - item.start) / item.repeatStep + 1
        }
    }

    /// The sorted values `items` allow; from the end of the month counting down for `~`.
    static func values(_ items: [CalendarComponent], upTo last: Int, fromEnd: Bool = false) -> [Int] {
        var values = Set<Int>()
        for item in items {
            if item.repeatStep == 0 {
                values.insert(item.start)
            } else if let stop = item.stop {
                values.formUnion(stride(from: item.start, through: stop, by: item.repeatStep))
            } else if fromEnd {
                values.formUnion(stride(from: item.start, through: 1, by: -item.repeatStep))
            } else {
                values.formUnion(stride(from: item.start, through: last, by: item.repeatStep))
            }
        }
        return values.sorted()
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
enum Shorthand {
    case minutely, hourly, daily, weekly, monthly, quarterly, semiannually, yearly

    init?(_ name: String) {
        switch name {
        case "minutely": self = .minutely
        case "hourly": self = .hourly
        case "daily": self = .daily
        case "weekly": self = .weekly
        case "monthly": self = .monthly
        case "quarterly": self = .quarterly
        case "semiannually", "semi-annually", "biannually", "bi-annually": self = .semiannually
        case "yearly", "annually", "anually": self = .yearly
        default: return nil
        }
    }

    /// A day or longer: `daily 03:00` may name the time.
    var takesTime: Bool { self != .minutely && self != .hourly }

    var spec: CalendarSpec {
        func one(_ values: Int...) -> [CalendarComponent] {
            values.map { CalendarComponent(start: $0, stop: nil, repeatStep: 0) }
        }
        var spec = CalendarSpec()
        spec.hours = one(0)
        spec.minutes = one(0)
        spec.microseconds = one(0)
        switch self {
        case .minutely:
            spec.hours = nil
            spec.minutes = nil
        case .hourly:
            spec.hours = nil
        case .daily:
            break
        case .weekly:
            spec.weekdays = 1
        case .monthly:
            spec.days = one(1)
        case .quarterly:
            spec.months = one(1, 4, 7, 10)
            spec.days = one(1)
        case .semiannually:
            spec.months = one(1, 7)
            spec.days = one(1)
        case .yearly:
            spec.months = one(1)
            spec.days = one(1)
        }
        return spec
    }
}
