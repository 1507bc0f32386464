// SPDX-License-Identifier: Apache-2.0
/// One `EnvironmentFile=` of a job: read at each spawn, so an edit applies to the next run.
public struct EnvironmentFileReference: Hashable, Sendable {
    /// Absolute path.
    public var path: String
    /// Written with systemd's leading `-`: a missing file is no error.
    public var mayBeMissing: Bool

    public init(path: String, mayBeMissing: Bool = false) {
        self.path = path
        self.mayBeMissing = mayBeMissing
    }

    /// `EnvironmentFile=` as written (`-/etc/default/x`).
    public var setting: String { (mayBeMissing ? "-" : "") + path }
}

/// The contents of an environment file as systemd reads them (systemd.exec(5),
/// `EnvironmentFile=`): `NAME=VALUE` lines, `#`/`;` comments, blank lines; a value may be
/// quoted with `"` or `'` (quotes removed); a backslash at the end of a line continues it;
/// an `export ` prefix is accepted, as in shell-style files under /etc/default. Lines that
/// are not assignments are skipped, as systemd does (with a warning it logs).
public enum EnvironmentFileParser {
    public static func parse(_ bytes: [UInt8]) -> [EnvironmentVariable] {
        var result = EnvironmentAssignments()
        var logical: [UInt8] = []
        for rawLine in bytes.split(separator: TextBytes.newline, omittingEmptySubsequences: false) {
            var line = Array(rawLine)
            if line.last == TextBytes.carriageReturn { line.removeLast() }
            if line.last == TextBytes.backslash {
                logical += line.dropLast()
                continue
            }
            logical += line
            defer { logical.removeAll(keepingCapacity: true) }
            if let variable = assignment(logical) { result.assign(variable.name, variable.value) }
        }
        return result.variables
    }

    static func assignment(_ line: [UInt8]) -> EnvironmentVariable? {
        var text = String(decoding: line, as: UTF8.self).trimmingSpaces
        guard let first = text.utf8.first, first != TextBytes.hash, first != TextBytes.semicolon else { return nil }
        if text.hasPrefix("export ") { text = String(text.dropFirst(7)).trimmingSpaces }
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let name = String(text[..<equals]).trimmingSpaces
        // A reserved name (AGENTD_*, STATE_DIRECTORY) is skipped like a malformed one: a file
        // cannot override what the agent sets for every run.
        guard EnvironmentVariable.problem(withName: name) == nil else { return nil }
        var value = String(text[text.index(after: equals)...]).trimmingSpaces
        if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
            value = String(value.dropFirst().dropLast())
        }
        return EnvironmentVariable(name: name, value: value)
    }
}
