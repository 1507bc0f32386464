// SPDX-License-Identifier: Apache-2.0
/// One time field of a cron line, as the set of values it matches, and its systemd.time(7) form.
struct CronField: Sendable, Hashable {
    var values: [Int]
    var isEvery: Bool
    /// `*/N` over the whole range: kept as systemd's `start/step` repetition.
    var step: Int?
    /// The field starts with `*` (`*`, `*/2`): cron then counts it unrestricted when it decides
    /// between its day of month and weekday (entry.c's DOM_STAR, DOW_STAR).
    var startsWithStar = false

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// `*`, `5`, `1,15`, `1-5`, `*/15`, `0-30/10`, names (`mon`, `jan`) where the field has them.
    static func parse(_ text: String, range: ClosedRange<Int>, names: [String]) throws(CronError) -> CronField {
        if text == "*" { return CronField(values: Array(range), isEvery: true, step: nil, startsWithStar: true) }
        var values: Set<Int> = []
        var wholeRangeStep: Int?
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, let spec = pieces.first else { throw .badField(text, "more than one /") }
            var step = 1
            if pieces.count == 2 {
                guard let value = Int(pieces[1]), value > 0 else { throw .badField(text, "step \"\(pieces[1])\" is not a positive number") }
                step = value
            }
            let bounds: ClosedRange<Int>
            if spec == "*" {
                bounds = range
                if pieces.count == 2, text == String(part) { wholeRangeStep = step }
            } else if let dash = spec.firstIndex(of: "-") {
                let low = try value(String(spec[..<dash]), range: range, names: names, field: text)
                let high = try value(String(spec[spec.index(after: dash)...]), range: range, names: names, field: text)
                guard low <= high else { throw .badField(text, "range \(low)-\(high) runs backwards") }
                bounds = low...high
            } else {
                let single = try value(String(spec), range: range, names: names, field: text)
                // Debian's cron (entry.c) refuses a step after a single value, and with it the
                // whole file.
                guard pieces.count == 1 else {
                    throw .badField(text, "a step needs a range or * before it: Debian's cron refuses \(part) "
                        + "(and ignores the file); write \(single)-\(range.upperBound)/\(step)")
                }
                bounds = single...single
            }
            values.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
        }
        return CronField(values: values.sorted(), isEvery: false, step: wholeRangeStep, startsWithStar: text.hasPrefix("*"))
    }

    private static func value(_ text: String, range: ClosedRange<Int>, names: [String], field: String) throws(CronError) -> Int {
        if let index = names.firstIndex(of: text.lowercased()) {
            return index + (range.lowerBound == 1 ? 1 : 0)
        }
        guard let number = Int(text), range.contains(number) else {
            throw .badField(field, "\"\(text)\" is not in \(range.lowerBound)-\(range.upperBound)")
        }
        return number
    }

    /// A number list in systemd's form: `*`, `0/15`, `1..5`, `1,15`.
    func numbers(width: Int) -> String {
        if isEvery { return "*" }
        func padded(_ n: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        if let step { return padded(values.first ?? 0) + "/" + String(step) }
        return Self.runs(values).map { run in
            run.count > 2 ? padded(run[0]) + ".." + padded(run[run.count - 1]) : run.map(padded).joined(separator: ",")
        }.joined(separator: ",")
    }

    /// Consecutive runs of sorted values: [1,2,3,5] → [[1,2,3],[5]].
    static func runs(_ values: [Int]) -> [[Int]] {
        var out: [[Int]] = []
        for value in values {
            if let last = out.last?.last, last + 1 == value { out[out.count - 1].append(value) } else { out.append([value]) }
        }
        return out
    }

    /// The weekday prefix (`Mon..Fri `, `Sun `) or "" when every day; 7 is Sunday too.
    func weekdayPrefix() -> String {
        if isEvery { return "" }
        let days = Set(values.map { $0 % 7 }).sorted()
        if days.count == 7 { return "" }
        // Monday-first, so Sat,Sun reads as one run (systemd's week starts on Monday).
        let mondayFirst = days.map { ($0 + 6) % 7 }.sorted()
        let text = Self.runs(mondayFirst).map { run in
            let names = run.map { Self.weekdayNames[($0 + 1) % 7] }
            return run.count > 2 ? names[0] + ".." + names[names.count - 1] : names.joined(separator: ",")
        }.joined(separator: ",")
        return text + " "
    }

    /// `[Weekdays ]*-MM-DD HH:MM`.
    static func calendarEvent(minute: CronField, hour: CronField, day: CronField, month: CronField,
                              weekday: CronField) -> String {
        weekday.weekdayPrefix() + "*-" + month.numbers(width: 2) + "-" + day.numbers(width: 2) + " "
            + hour.numbers(width: 2) + ":" + minute.numbers(width: 2)
    }
}
