// SPDX-License-Identifier: Apache-2.0
/// The contents of an environment file as systemd reads them (systemd.exec(5), `EnvironmentFile=`;
/// the state machine of `parse_env_file_internal` in systemd 252's src/basic/env-file.c):
///
/// - blank lines, and lines whose first non-blank is `#` or `;`, are comments; a comment line
///   ending in `\` also comments out the next line (systemd 254 dropped that, 252 has it);
/// - `NAME=VALUE`, blanks allowed around `=`; a line without `=` is skipped;
/// - an unquoted value loses its leading and trailing blanks; `\` keeps the next character
///   (`a\ b` is `a b`) and `\` before a line end joins the next line; `#` and quotes inside it
///   are plain characters;
/// - `'…'` keeps everything up to the next `'`, line ends included;
/// - `"…"` likewise, but `\` before `"`, `\`, `` ` `` or `$` keeps just that character,
///   `\` before a line end drops both, and any other `\` stays as written;
/// - quoted and unquoted parts at the start of a value join (`"x"y` is `xy`); an unclosed quote
///   runs to the end of the file.
///
/// Beyond systemd: CR LF counts as one line end everywhere (a file saved on Windows works
/// unchanged), and an `export ` before the name is dropped, as shell-style files under
/// /etc/default have it. A name that is not a variable name, or is one the agent sets for every
/// run, is skipped, as systemd skips invalid names when it loads the file for a unit. A later
/// assignment of a name replaces an earlier one.
public enum EnvironmentFileParser {
    public static func parse(_ bytes: [UInt8]) -> [EnvironmentVariable] {
        var reader = Reader()
        for index in bytes.indices {
            let isCRBeforeLF = bytes[index] == TextBytes.carriageReturn
                && index + 1 < bytes.endIndex && bytes[index + 1] == TextBytes.newline
            if !isCRBeforeLF { reader.read(bytes[index]) }
        }
        reader.finish()
        return reader.assignments.variables
    }

    /// One byte at a time, as systemd's parser goes: every character that matters is ASCII, so
    /// UTF-8 sequences pass through untouched.
    private struct Reader {
        enum State {
            case beforeKey, key, beforeValue, value, valueEscape
            case singleQuoted, doubleQuoted, doubleQuotedEscape, comment, commentEscape
        }

        var state = State.beforeKey
        var key: [UInt8] = []
        var value: [UInt8] = []
        /// Where the unquoted value's run of trailing blanks starts. An escaped blank belongs to
        /// the value, so a backslash clears it.
        var trailingBlanks: Int?
        var assignments = EnvironmentAssignments()

        mutating func read(_ byte: UInt8) {
            switch state {
            case .beforeKey:
                if byte == TextBytes.hash || byte == TextBytes.semicolon {
                    state = .comment
                } else if !TextBytes.isWhitespace(byte) {
                    state = .key
                    key = [byte]
                }
            case .key:
                if isLineEnd(byte) {
                    state = .beforeKey  // no `=`: not an assignment
                } else if byte == TextBytes.equals {
                    state = .beforeValue
                    value = []
                    trailingBlanks = nil
                } else {
                    key.append(byte)
                }
            case .beforeValue:
                if isLineEnd(byte) {
                    state = .beforeKey
                    store()
                } else if byte == TextBytes.singleQuote {
                    state = .singleQuoted
                } else if byte == TextBytes.doubleQuote {
                    state = .doubleQuoted
                } else if byte == TextBytes.backslash {
                    state = .valueEscape
                } else if !TextBytes.isWhitespace(byte) {
                    state = .value
                    value.append(byte)
                }
            case .value:
                if isLineEnd(byte) {
                    state = .beforeKey
                    dropTrailingBlanks()
                    store()
                } else if byte == TextBytes.backslash {
                    state = .valueEscape
                    trailingBlanks = nil
                } else {
                    if !TextBytes.isWhitespace(byte) {
                        trailingBlanks = nil
                    } else if trailingBlanks == nil {
                        trailingBlanks = value.count
                    }
                    value.append(byte)
                }
            case .valueEscape:
                state = .value
                if !isLineEnd(byte) { value.append(byte) }
            case .singleQuoted:
                if byte == TextBytes.singleQuote { state = .beforeValue } else { value.append(byte) }
            case .doubleQuoted:
                if byte == TextBytes.doubleQuote {
                    state = .beforeValue
                } else if byte == TextBytes.backslash {
                    state = .doubleQuotedEscape
                } else {
                    value.append(byte)
                }
            case .doubleQuotedEscape:
                state = .doubleQuoted
                if Self.escapedInDoubleQuotes.contains(byte) {
                    value.append(byte)
                } else if byte != TextBytes.newline {
                    // As in a shell: a backslash that escapes nothing is kept.
                    value += [TextBytes.backslash, byte]
                }
            case .comment:
                if byte == TextBytes.backslash {
                    state = .commentEscape
                } else if isLineEnd(byte) {
                    state = .beforeKey
                }
            case .commentEscape:
                state = .comment
            }
        }

        /// The end of the file ends a pending assignment, even inside an unclosed quote.
        mutating func finish() {
            switch state {
            case .value:
                dropTrailingBlanks()
                store()
            case .beforeValue, .valueEscape, .singleQuoted, .doubleQuoted, .doubleQuotedEscape:
                store()
            case .beforeKey, .key, .comment, .commentEscape:
                break
            }
        }

        /// systemd's SHELL_NEED_ESCAPE: `"`, `\`, `` ` ``, `$`.
        static let escapedInDoubleQuotes: Set<UInt8> = [TextBytes.doubleQuote, TextBytes.backslash, 0x60, 0x24]

        static let export = Array("export".utf8)

        /// systemd's NEWLINE set: a lone CR ends a line too (outside quotes).
        func isLineEnd(_ byte: UInt8) -> Bool {
            byte == TextBytes.newline || byte == TextBytes.carriageReturn
        }

        mutating func dropTrailingBlanks() {
            if let trailingBlanks { value.removeSubrange(trailingBlanks...) }
        }

        mutating func store() {
            var name = key
            while let last = name.last, TextBytes.isWhitespace(last) { name.removeLast() }
            let export = Self.export
            if name.starts(with: export), name.count > export.count, TextBytes.isWhitespace(name[export.count]) {
                name = Array(name.dropFirst(export.count).drop(while: TextBytes.isWhitespace))
            }
            let text = String(decoding: name, as: UTF8.self)
            // A reserved name (AGENTD_*, STATE_DIRECTORY) is skipped like a malformed one: a file
            // cannot override what the agent sets for every run.
            guard EnvironmentVariable.problem(withName: text) == nil else { return }
            assignments.assign(text, String(decoding: value, as: UTF8.self))
        }
    }
}
