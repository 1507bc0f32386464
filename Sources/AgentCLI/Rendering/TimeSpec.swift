// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// systemd.time(7)'s timestamps, as `systemd-analyze calendar --base-time` and `journalctl
/// --since` read them: `now`, `today`, `yesterday`, `tomorrow`, `@UNIXSECONDS`,
/// `[WEEKDAY] YYYY-MM-DD [HH:MM[:SS]]`, `HH:MM[:SS]` (today), each optionally ending in `UTC`;
/// and relative ones: `+SPAN`, `-SPAN`, `SPAN ago`, `SPAN left` (`-2h`, `1d ago`).
enum TimeSpec {
    /// The instant (Unix seconds) `text` names, with `now` and the local rule given; nil when it
    /// is none of the forms above.
    static func parse(_ text: String, now: Int64, rule: some UTCOffsetRule) -> Int64? {
        var words = text.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return nil }
        if let relative = relative(words, now: now) { return relative }
        var utc = false
        if let last = words.last, TextBytesCompare.equalIgnoringCase(last, "UTC"), words.count > 1 {
            utc = true
            words.removeLast()
        }
        func instant(_ local: Int64) -> Int64 {
            utc ? local : local - Int64(rule.utcOffset(at: local - Int64(rule.utcOffset(at: local))))
        }
        let localNow = utc ? now : now + Int64(rule.utcOffset(at: now))
        let today = CivilDateTime.floorDivide(localNow, 86_400) * 86_400
        switch words.joined(separator: " ").lowercased() {
        case "now": return now
        case "today": return instant(today)
        case "yesterday": return instant(today - 86_400)
        case "tomorrow": return instant(today + 86_400)
        default: break
        }
        // systemd.time(7): "a timestamp is considered invalid if a weekday is specified and the
        // date does not match".
        var weekday: Int?
        if let first = words.first, first.first?.isLetter == true, words.count > 1 {
            guard let named = weekdayIndex(first) else { return nil }
            weekday = named
            words.removeFirst()
        }
        var day = today
        var seconds: Int64 = 0
        if let first = words.first, first.contains("-") {
            let parts = first.split(separator: "-").compactMap { Int64($0) }
            guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
            day = CivilDateTime.days(year: parts[0], month: Int(parts[1]), day: Int(parts[2])) * 86_400
            words.removeFirst()
        }
        if let first = words.first {
            let parts = first.split(separator: ":").map { Int64($0) }
            guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }),
                  let hour = parts[0], let minute = parts[1], hour < 24, minute < 60 else { return nil }
            let second = parts.count == 3 ? parts[2] ?? 0 : 0
            guard second < 60 else { return nil }
            seconds = hour * 3600 + minute * 60 + second
            words.removeFirst()
        }
        guard words.isEmpty else { return nil }
        if let weekday, weekdayIndex(ofDay: CivilDateTime.floorDivide(day, 86_400)) != weekday { return nil }
        return instant(day + seconds)
    }

    private static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Monday 0 … Sunday 6, from the English name or its first three letters, any case.
    static func weekdayIndex(_ word: String) -> Int? {
        let lower = word.lowercased()
        return weekdays.firstIndex { $0 == lower || $0.prefix(3) == lower }
    }

    /// Monday 0 … Sunday 6 of the day `days` after 1970-01-01 (a Thursday).
    static func weekdayIndex(ofDay days: Int64) -> Int {
        Int(((days % 7) + 7 + 3) % 7)
    }

    /// `@SECONDS`, `+SPAN`, `-SPAN`, `SPAN ago`, `SPAN left`; a span may have spaces in it, as
    /// systemd's do (`-2 min`, `1h 30min ago`).
    static func relative(_ words: [String], now: Int64) -> Int64? {
        guard let first = words.first, let last = words.last else { return nil }
        if words.count == 1, first.hasPrefix("@"), let seconds = Int64(first.dropFirst()) { return seconds }
        if words.count > 1, last == "ago" || last == "left",
           let span = TimeSpan.parse(words.dropLast().joined(separator: " "))
        {
            let seconds = span.components.seconds
            return last == "ago" ? now - seconds : now + seconds
        }
        guard let sign = first.first, sign == "+" || sign == "-",
              let span = TimeSpan.parse(String(words.joined(separator: " ").dropFirst()).trimmingLeadingSpaces)
        else { return nil }
        let seconds = span.components.seconds
        return sign == "+" ? now + seconds : now - seconds
    }
}

enum TextBytesCompare {
    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }
}

private extension String {
    var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
