// SPDX-License-Identifier: Apache-2.0
/// One assignment as the typed layer sees it, from a unit file or a drop-in header.
struct Assignment: Sendable {
    var key: String
    var value: String
    var line: Int?
    /// A drop-in header token is already unquoted, so a list key takes it as one item rather
    /// than splitting it again.
    var isSingleItem: Bool = false

    init(key: String, value: String, line: Int?, isSingleItem: Bool = false) {
        self.key = key
        self.value = value
        self.line = line
        self.isSingleItem = isSingleItem
    }

    init(_ entry: UnitFile.Entry) {
        self.init(key: entry.key, value: entry.value, line: entry.line)
    }
}

/// Applies systemd's assignment rules for one file type and collects diagnostics:
/// for a scalar key the last assignment wins; a list key accumulates items over repeated
/// assignments and an empty assignment (`Key=`) empties the list; an empty scalar assignment
/// means the key's default. Unknown keys are warnings, with a suggestion when one is close.
struct KeyReader {
    let path: String
    private(set) var diagnostics: [ConfigDiagnostic] = []
    private(set) var hasErrors = false
    private var scalars: [String: Assignment] = [:]
    private var lists: [String: [Assignment]] = [:]
    /// The line of the last empty assignment of each list key (`Exec=`), for "is empty" errors.
    private var resets: [String: Int] = [:]

    init(path: String, assignments: [Assignment], scalarKeys: [String], listKeys: [String],
         place: String)
    {
        self.path = path
        let scalarSet = Set(scalarKeys)
        let listSet = Set(listKeys)
        var unknown = 0
        var firstUnsaid: Int?
        for assignment in assignments {
            if scalarSet.contains(assignment.key) {
                scalars[assignment.key] = assignment
            } else if listSet.contains(assignment.key) {
                if assignment.value.isEmpty {
                    lists[assignment.key] = []
                    if let line = assignment.line { resets[assignment.key] = line }
                } else {
                    lists[assignment.key, default: []].append(assignment)
                }
            } else {
                unknown += 1
                // Twenty are said, with a suggestion each; the rest in one line: a file of
                // 20,000 unknown keys is read in milliseconds, not seconds.
                guard unknown <= Self.unknownKeysSaid else {
                    firstUnsaid = firstUnsaid ?? assignment.line ?? 0
                    continue
                }
                var message = "\(TextBytes.shownName(assignment.key)): unknown key in \(place), ignored"
                if let suggestion = Self.suggestion(for: assignment.key, among: scalarKeys + listKeys) {
                    message += " (did you mean \(suggestion)?)"
                }
                warning(assignment.line, message)
            }
        }
        if let firstUnsaid {
            let more = unknown - Self.unknownKeysSaid
            warning(firstUnsaid, "\(more) more unknown key\(more == 1 ? "" : "s") in \(place) from here on, ignored")
        }
    }

    /// Unknown keys a file's diagnostics name one by one.
    static let unknownKeysSaid = 20

    static func suggestion(for key: String, among known: [String]) -> String? {
        NameSuggestion.closest(to: key, among: known)
    }

    mutating func error(_ line: Int?, _ message: String) {
        diagnostics.append(ConfigDiagnostic(path: path, line: line, severity: .error, message: message))
        hasErrors = true
    }

    mutating func warning(_ line: Int?, _ message: String) {
        diagnostics.append(ConfigDiagnostic(path: path, line: line, severity: .warning, message: message))
    }

    /// The assignment in force for a scalar key, or nil when absent or empty (= the default).
    func scalar(_ key: String) -> Assignment? {
        guard let assignment = scalars[key], !assignment.value.isEmpty else { return nil }
        return assignment
    }

    /// The last assignment of a scalar key, even an empty one.
    func assignment(_ key: String) -> Assignment? { scalars[key] }

    /// The line of the last empty assignment of a list key, if any.
    func resetLine(_ key: String) -> Int? { resets[key] }

    /// The assignments in force for a list key, after the last reset.
    func list(_ key: String) -> [Assignment] { lists[key] ?? [] }

    /// The whitespace-separated words of a list key, each with its line.
    func words(_ key: String) -> [(word: String, line: Int?)] {
        var result: [(String, Int?)] = []
        for assignment in list(key) {
            if assignment.isSingleItem {
                result.append((assignment.value, assignment.line))
            } else {
                for word in assignment.value.utf8.split(whereSeparator: TextBytes.isWhitespace) {
                    result.append((String(decoding: word, as: UTF8.self), assignment.line))
                }
            }
        }
        return result
    }

    // MARK: Typed values. Each reports "Key: … (what would be valid)" and returns the default.

    mutating func bool(_ key: String, default value: Bool) -> Bool {
        guard let assignment = scalar(key) else { return value }
        guard let parsed = BooleanValue.parse(assignment.value) else {
            error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not a boolean "
                + "(\(BooleanValue.validSpellings))")
            return value
        }
        return parsed
    }

    /// A time span; `allowZero` for keys where 0 makes sense (GracePeriod=0: SIGKILL at once).
    mutating func span(_ key: String, default value: Duration, allowZero: Bool) -> Duration {
        guard let assignment = scalar(key) else { return value }
        return checkedSpan(assignment, key, allowZero: allowZero, noneAllowed: false) ?? value
    }

    /// A time span where `none` or `infinity` mean "never" (systemd's `TimeoutStopSec=infinity`),
    /// stood for by `never`, a span long enough that nothing waits for it.
    mutating func spanOrNever(_ key: String, default value: Duration, never: Duration) -> Duration {
        if let assignment = scalar(key), ["infinity", "none"].contains(TextBytes.asciiLowercased(assignment.value)) {
            return never
        }
        return span(key, default: value, allowZero: true)
    }

    /// A time span where `none` or `infinity` mean "no value".
    mutating func optionalSpan(_ key: String, default value: Duration?) -> Duration? {
        guard let assignment = scalar(key) else { return value }
        switch TextBytes.asciiLowercased(assignment.value) {
        case "none", "infinity": return nil
        default: return checkedSpan(assignment, key, allowZero: false, noneAllowed: true) ?? value
        }
    }

    private mutating func checkedSpan(_ assignment: Assignment, _ key: String, allowZero: Bool,
                                      noneAllowed: Bool) -> Duration?
    {
        let extra = noneAllowed ? ", or none" : ""
        guard let span = TimeSpan.parse(assignment.value) else {
            error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not a time span "
                + "(examples: \(TimeSpan.examples))")
            return nil
        }
        if !allowZero, span == .zero {
            error(assignment.line, "\(key): must be longer than 0 (examples: \(TimeSpan.examples)\(extra))")
            return nil
        }
        return span
    }

    /// A keyword from a fixed set, such as `Kind=`.
    mutating func keyword<T: RawRepresentable & CaseIterable>(_ key: String, default value: T,
                                                               noun: String) -> T
        where T.RawValue == String
    {
        guard let assignment = scalar(key) else { return value }
        if let parsed = T(rawValue: assignment.value) { return parsed }
        let names = T.allCases.map(\.rawValue).joined(separator: ", ")
        error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not \(noun) (\(names))")
        return value
    }

    /// A whole number within `range`.
    mutating func integer(_ key: String, default value: Int, range: ClosedRange<Int>,
                          percent: Bool = false) -> Int
    {
        guard let assignment = scalar(key) else { return value }
        var text = Substring(assignment.value)
        if percent, text.hasSuffix("%") { text = text.dropLast() }
        if let parsed = Self.parseInteger(text), range.contains(parsed) { return parsed }
        if percent {
            error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not a percentage "
                + "from \(range.lowerBound) to \(range.upperBound) (examples: 20%, 20)")
        } else {
            error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not a whole number "
                + "from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    static func parseInteger(_ text: Substring) -> Int? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 12, bytes.allSatisfy(TextBytes.isDigit) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `DailyBudget=N|infinity` (agentd.conf and manifests: one syntax, one range); nil when
    /// absent, empty or wrong (the caller's default).
    mutating func dailyBudget(_ key: String) -> Int? {
        guard let assignment = scalar(key) else { return nil }
        if TextBytes.asciiLowercased(assignment.value) == "infinity" { return AgentSettings.unlimitedDailyBudget }
        let range = AgentSettings.dailyBudgetRange
        if let parsed = Self.parseInteger(Substring(assignment.value)), range.contains(parsed) { return parsed }
        error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not a whole number "
            + "from \(range.lowerBound) to \(range.upperBound), or infinity")
        return nil
    }
}
