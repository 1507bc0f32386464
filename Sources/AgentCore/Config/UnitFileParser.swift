// SPDX-License-Identifier: Apache-2.0
/// A config file in systemd's unit-file syntax, as written: sections of `Key=Value` assignments
/// with their line numbers, before any key is interpreted.
public struct UnitFile: Sendable, Hashable {
    /// One `Key=Value` assignment; `line` is where its logical line starts.
    public struct Entry: Sendable, Hashable {
        public var key: String
        public var value: String
        public var line: Int

        public init(key: String, value: String, line: Int) {
            self.key = key
            self.value = value
            self.line = line
        }
    }

    /// One `[Name]` header and the assignments below it. A name may occur several times; as in
    /// systemd, repeated sections are read as one.
    public struct Section: Sendable, Hashable {
        public var name: String
        public var line: Int
        public var entries: [Entry]

        public init(name: String, line: Int, entries: [Entry] = []) {
            self.name = name
            self.line = line
            self.entries = entries
        }
    }

    public var sections: [Section]

    public init(sections: [Section] = []) {
        self.sections = sections
    }

    /// Every assignment of every section called `name`, in file order.
    public func entries(in name: String) -> [Entry] {
        sections.lazy.filter { $0.name == name }.flatMap(\.entries)
    }

    /// The line of the first `[name]` header, if any.
    public func firstLine(of name: String) -> Int? {
        sections.first { $0.name == name }?.line
    }
}

/// systemd's unit-file syntax (`systemd.syntax(7)`), on UTF-8 bytes:
///
/// - `[Section]` headers; `Key=Value` with whitespace around key and value trimmed; keys and
///   section names are case-sensitive.
/// - `#` and `;` start a comment only as the first non-blank character of a line, so
///   `Kind=refresh # x` has the value `refresh # x`. Comment lines inside a continuation are
///   skipped, as systemd does.
/// - A line ending in an odd number of backslashes continues on the next line; the backslash
///   becomes a space. A backslash continuing into the end of the file just ends the line.
/// - Lines end at `\n`, `\r\n` or `\r`; a leading UTF-8 byte-order mark is skipped.
///
/// Errors, each rejecting the file: invalid UTF-8, a NUL byte, a logical line over 1 MiB, an
/// unterminated or empty section header, a line that is neither header, comment nor assignment,
/// an empty key, and an assignment before the first section. Encoding errors (NUL, UTF-8,
/// over-long lines) stop parsing at once; other errors are collected, up to `maximumErrors`.
public enum UnitFileParser {
    /// systemd's `LONG_LINE_MAX`: 1 MiB.
    public static let maximumLineLength = 1 << 20
    public static let maximumErrors = 20

    /// Parses `bytes` read from `path` (relative to the config directory; used in messages).
    /// `expectedSection` (such as `[Job]`) is what messages suggest when something precedes
    /// the first header.
    public static func parse(_ bytes: [UInt8], path: String, expectedSection: String)
        -> ConfigParseResult<UnitFile>
    {
        var parser = Parser(bytes: bytes, path: path, expectedSection: expectedSection)
        parser.run()
        if parser.errors.isEmpty {
            return ConfigParseResult(value: UnitFile(sections: parser.sections), diagnostics: [])
        }
        return .failure(parser.errors)
    }

    /// As `parse`, but a file with only structural errors (a line that is no assignment, a key
    /// before any section, a broken header) is also returned as read, beside them: its other
    /// errors and its identifier can still be told. nil after an encoding error. What job files,
    /// manifests and agentd.conf are read with; `parse` is for systemd's own units (convert).
    public static func parseKeepingGoing(_ bytes: [UInt8], path: String, expectedSection: String)
        -> (file: UnitFile?, errors: [ConfigDiagnostic])
    {
        var parser = Parser(bytes: bytes, path: path, expectedSection: expectedSection)
        parser.run()
        return (parser.stopped ? nil : UnitFile(sections: parser.sections), parser.errors)
    }

    private struct Parser {
        let bytes: [UInt8]
        let path: String
        let expectedSection: String
        var sections: [UnitFile.Section] = []
        var errors: [ConfigDiagnostic] = []
        /// After a broken header, assignments have no section either; one error is enough.
        var sawBrokenHeader = false
        /// An encoding error (NUL, not UTF-8, a line over 1 MiB) ended the reading: what was
        /// read is not the file.
        var stopped = false

        init(bytes: [UInt8], path: String, expectedSection: String) {
            self.bytes = bytes
            self.path = path
            self.expectedSection = expectedSection
        }

        mutating func fail(_ line: Int, _ message: String) {
            if errors.count == UnitFileParser.maximumErrors {
                errors.append(ConfigDiagnostic(
                    path: path, line: line,
                    message: "too many errors; stopped reading here"))
            }
            if errors.count <= UnitFileParser.maximumErrors {
                errors.append(ConfigDiagnostic(path: path, line: line, message: message))
            }
        }

        mutating func run() {
            let count = bytes.count
            var index = 0
            if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            var lineNumber = 0
            // Continuation state: bytes gathered so far and the line they started on.
            var pending: [UInt8] = []
            var pendingLine = 0
            var continuing = false

            while index < count {
                lineNumber += 1
                let start = index
                var end = start
                while end < count {
                    let byte = bytes[end]
                    if byte == TextBytes.newline || byte == TextBytes.carriageReturn { break }
                    if byte == 0 {
                        fail(lineNumber, "contains a NUL byte at column \(end - start + 1); "
                            + "config files must be UTF-8 text")
                        stopped = true
                        return
                    }
                    end += 1
                }
                index = end
                if index < count {
                    let terminator = bytes[index]
                    index += 1
                    if terminator == TextBytes.carriageReturn, index < count,
                        bytes[index] == TextBytes.newline
                    {
                        index += 1
                    }
                }
                if end - start > UnitFileParser.maximumLineLength {
                    fail(lineNumber, "line is \(end - start) bytes long; at most 1 MiB "
                        + "(\(UnitFileParser.maximumLineLength) bytes) is allowed")
                    stopped = true
                    return
                }
                // Comment lines are skipped before continuation handling, as in systemd, and
                // may hold any bytes (a Latin-1 name in a comment is no error: DESIGN §3).
                var first = start
                while first < end, TextBytes.isWhitespace(bytes[first]) { first += 1 }
                if first < end, bytes[first] == TextBytes.hash || bytes[first] == TextBytes.semicolon {
                    continue
                }
                if let bad = TextBytes.firstInvalidUTF8(bytes, start..<end) {
                    let hex = String(bytes[bad], radix: 16, uppercase: true)
                    fail(lineNumber, "is not valid UTF-8 (byte 0x\(hex) at column "
                        + "\(bad - start + 1)); section, key and value lines must be UTF-8 text")
                    stopped = true
                    return
                }
                var trailingBackslashes = 0
                while trailingBackslashes < end - start,
                    bytes[end - 1 - trailingBackslashes] == TextBytes.backslash
                {
                    trailingBackslashes += 1
                }
                let continues = trailingBackslashes % 2 == 1
                if continues || continuing {
                    if !continuing {
                        continuing = true
                        pendingLine = lineNumber
                        pending.removeAll(keepingCapacity: true)
                    }
                    pending.append(contentsOf: bytes[start..<(continues ? end - 1 : end)])
                    if continues { pending.append(TextBytes.space) }
                    if pending.count > UnitFileParser.maximumLineLength {
                        fail(pendingLine, "continued line is longer than 1 MiB "
                            + "(\(UnitFileParser.maximumLineLength) bytes)")
                        stopped = true
                        return
                    }
                    if continues { continue }
                    continuing = false
                    let logical = pending
                    process(logical, 0..<logical.count, line: pendingLine)
                } else {
                    process(bytes, start..<end, line: lineNumber)
                }
            }
            if continuing {
                let logical = pending
                process(logical, 0..<logical.count, line: pendingLine)
            }
        }

        mutating func process(_ text: [UInt8], _ range: Range<Int>, line: Int) {
            let trimmed = TextBytes.trimmed(text, range)
            if trimmed.isEmpty { return }
            let shown = { TextBytes.quoted(TextBytes.string(text, trimmed)) }
            if text[trimmed.lowerBound] == 0x5B {  // "["
                guard text[trimmed.upperBound - 1] == 0x5D else {  // "]"
                    sawBrokenHeader = true
                    if let close = text[trimmed].firstIndex(of: 0x5D) {
                        let header = TextBytes.shownName(TextBytes.string(text, trimmed.lowerBound..<(close + 1)))
                        fail(line, "section header \(shown()) has text after \"]\"; "
                            + "write \(header) alone on its line")
                    } else {
                        let header = TextBytes.shownName(TextBytes.string(text, trimmed))
                        fail(line, "section header \(shown()) has no closing \"]\"; write \(header)]")
                    }
                    return
                }
                let name = TextBytes.string(text, (trimmed.lowerBound + 1)..<(trimmed.upperBound - 1))
                guard !name.isEmpty else {
                    sawBrokenHeader = true
                    fail(line, "empty section header []; write \(expectedSection)")
                    return
                }
                sections.append(UnitFile.Section(name: name, line: line))
                return
            }
            guard let equals = text[trimmed].firstIndex(of: TextBytes.equals) else {
                fail(line, "\(shown()) is not a Key=Value assignment, a [Section] header or a "
                    + "comment (comments start with # or ; at the beginning of a line)")
                return
            }
            let keyRange = TextBytes.trimmed(text, trimmed.lowerBound..<equals)
            guard !keyRange.isEmpty else {
                fail(line, "\(shown()) has no key before \"=\"; write Key=Value")
                return
            }
            let key = TextBytes.string(text, keyRange)
            guard !sections.isEmpty else {
                if !sawBrokenHeader { fail(line, "\(TextBytes.shownName(key))= comes before any section; put \(expectedSection) above it") }
                return
            }
            let value = TextBytes.string(text, TextBytes.trimmed(text, (equals + 1)..<trimmed.upperBound))
            sections[sections.count - 1].entries.append(
                UnitFile.Entry(key: key, value: value, line: line))
        }
    }
}
