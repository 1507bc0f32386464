// SPDX-License-Identifier: Apache-2.0
/// Why an `Exec=` line (or another quoted list) could not be split into words.
public enum ExecLineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `"` or `'` quote was opened and never closed.
    case unbalancedQuote(String)
    /// The text ends in a backslash that escapes nothing.
    case trailingBackslash
    /// A backslash escape systemd does not define, or one that would produce a NUL byte.
    case invalidEscape(String)
    /// A systemd command prefix (`-`, `@`, `+`, `!`, `:`, `|`) before the path.
    case unsupportedPrefix(String)
    /// A lone `;`, which systemd reads as the start of a second command.
    case multipleCommands
    /// `\x..` or octal escapes that together do not form UTF-8.
    case invalidUTF8
    /// A raw NUL byte: no argument or list item can carry one (execve ends a string there), and
    /// `\x00` is refused the same way.
    case containsNUL

    public var description: String {
        switch self {
        case .unbalancedQuote(let quote):
            return "unbalanced \(quote) quote: close it, or write \\\(quote) for a literal \(quote)"
        case .trailingBackslash:
            return "ends in a lone backslash; write \\\\ for a literal backslash"
        case .invalidEscape(let escape):
            return "\(escape) is not a valid escape (valid: \\a \\b \\f \\n \\r \\t \\v \\\\ \\\" "
                + "\\' \\s \\; \\<space> \\xHH \\NNN \\uHHHH \\UHHHHHHHH, none of them NUL); "
                + "write \\\\ for a literal backslash"
        case .unsupportedPrefix(let prefix):
            return "starts with \"\(prefix)\": of systemd's command prefixes only - (the command may "
                + "fail) is supported, not @ + ! : |; start with the plugin's absolute path"
        case .multipleCommands:
            return "a lone ; would start a second command, which is not supported; "
                + "write \\; for a literal semicolon"
        case .invalidUTF8:
            return "escape sequences produce bytes that are not valid UTF-8"
        case .containsNUL:
            return "contains a NUL byte, which no argument can carry; remove it"
        }
    }
}

/// systemd's command-line quoting (`systemd.service(5)`, "Command lines"), without a shell and
/// without `$VARIABLE` or `%` specifier expansion.
///
/// Words are separated by whitespace. Double and single quotes group text containing spaces and
/// may appear anywhere in a word (`a"b c"d` is `ab cd`); `""` is an empty word. Inside and outside
/// quotes, backslash escapes are decoded as systemd's `cunescape`: `\a \b \f \n \r \t \v \\ \" \'`,
/// `\s` (space), `\;`, a backslash before a space or tab, `\xHH`, `\NNN` (octal), `\uHHHH`, `\UHHHHHHHH`. Unknown escapes are errors
/// rather than systemd's warning, so a typo cannot silently change an argument.
public enum ExecLine {
    /// Splits an `Exec=` value into argv. Beyond `tokenize`, this refuses systemd's command
    /// prefixes (`-/usr/bin/x`, `@…`, `+…`, `!…`, `:…`, `|…`) and a lone `;`.
    public static func split(_ text: String) -> Result<[String], ExecLineError> {
        let bytes = Array(text.utf8)
        if let first = bytes.first(where: { !TextBytes.isWhitespace($0) }) {
            switch first {
            case 0x2D, 0x40, 0x2B, 0x21, 0x3A, 0x7C:  // - @ + ! : |
                return .failure(.unsupportedPrefix(String(UnicodeScalar(first))))
            default:
                break
            }
        }
        return words(bytes, refuseLoneSemicolon: true)
    }

    /// Splits a quoted, whitespace-separated list (`Environment=`, drop-in `# agentd:` headers)
    /// with the same quoting as `split`, but no command-line rules.
    public static func tokenize(_ text: String) -> Result<[String], ExecLineError> {
        words(Array(text.utf8), refuseLoneSemicolon: false)
    }

    private static func words(_ bytes: [UInt8], refuseLoneSemicolon: Bool)
        -> Result<[String], ExecLineError>
    {
        var result: [String] = []
        var word: [UInt8] = []
        var inWord = false
        var wordStart = 0
        var quote: UInt8 = 0
        var index = 0
        let count = bytes.count

        func finish(_ end: Int) -> ExecLineError? {
            if refuseLoneSemicolon, end - wordStart == 1, bytes[wordStart] == TextBytes.semicolon {
                return .multipleCommands
            }
            guard TextBytes.firstInvalidUTF8(word, 0..<word.count) == nil else {
                return .invalidUTF8
            }
            if word.contains(0) { return .containsNUL }
            result.append(String(decoding: word, as: UTF8.self))
            word.removeAll(keepingCapacity: true)
            inWord = false
            return nil
        }

        while index < count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote {
                    quote = 0
                    index += 1
                } else if byte == TextBytes.backslash {
                    switch unescape(bytes, at: index, into: &word) {
                    case .success(let next): index = next
                    case .failure(let error): return .failure(error)
                    }
                } else {
                    word.append(byte)
                    index += 1
                }
                continue
            }
            if TextBytes.isWhitespace(byte) {
                if inWord, let error = finish(index) { return .failure(error) }
                index += 1
                continue
            }
            if !inWord {
                inWord = true
                wordStart = index
            }
            if byte == TextBytes.doubleQuote || byte == TextBytes.singleQuote {
                quote = byte
                index += 1
            } else if byte == TextBytes.backslash {
                switch unescape(bytes, at: index, into: &word) {
                case .success(let next): index = next
                case .failure(let error): return .failure(error)
                }
            } else {
                word.append(byte)
                index += 1
            }
        }
        if quote != 0 {
            return .failure(.unbalancedQuote(quote == TextBytes.doubleQuote ? "\"" : "'"))
        }
        if inWord, let error = finish(count) { return .failure(error) }
        return .success(result)
    }

    /// Decodes the escape starting at the backslash `bytes[index]`, appending its bytes to `out`;
    /// returns the index after the escape.
    private static func unescape(_ bytes: [UInt8], at index: Int, into out: inout [UInt8])
        -> Result<Int, ExecLineError>
    {
        let count = bytes.count
        guard index + 1 < count else { return .failure(.trailingBackslash) }
        let code = bytes[index + 1]
        func invalid(_ length: Int) -> Result<Int, ExecLineError> {
            let end = min(count, index + length)
            return .failure(.invalidEscape(String(decoding: bytes[index..<end], as: UTF8.self)))
        }
        switch code {
        case 0x61: out.append(0x07)  // \a
        case 0x62: out.append(0x08)  // \b
        case 0x66: out.append(0x0C)  // \f
        case 0x6E: out.append(0x0A)  // \n
        case 0x72: out.append(0x0D)  // \r
        case 0x74: out.append(0x09)  // \t
        case 0x76: out.append(0x0B)  // \v
        case 0x73: out.append(0x20)  // \s
        case 0x5C, 0x22, 0x27, 0x3B: out.append(code)  // \\ \" \' \;
        case 0x20, 0x09: out.append(code)  // an escaped separator, as systemd's Exec= allows
        case 0x78:  // \xHH: a raw byte, as systemd
            guard index + 3 < count,
                let high = TextBytes.hexValue(bytes[index + 2]),
                let low = TextBytes.hexValue(bytes[index + 3])
            else { return invalid(4) }
            let value = high << 4 | low
            guard value != 0 else { return invalid(4) }
            out.append(UInt8(value))
            return .success(index + 4)
        case 0x30...0x37:  // \NNN octal: a raw byte
            guard index + 3 < count,
                (0x30...0x37).contains(bytes[index + 2]), (0x30...0x37).contains(bytes[index + 3])
            else { return invalid(4) }
            let value = UInt32(code - 0x30) << 6 | UInt32(bytes[index + 2] - 0x30) << 3
                | UInt32(bytes[index + 3] - 0x30)
            guard value != 0, value <= 0xFF else { return invalid(4) }
            out.append(UInt8(value))
            return .success(index + 4)
        case 0x75, 0x55:  // \uHHHH, \UHHHHHHHH: a Unicode scalar, UTF-8 encoded
            let digits = code == 0x75 ? 4 : 8
            guard index + 2 + digits <= count else { return invalid(2 + digits) }
            var value: UInt32 = 0
            for offset in 0..<digits {
                guard let digit = TextBytes.hexValue(bytes[index + 2 + offset]) else {
                    return invalid(2 + digits)
                }
                value = value << 4 | digit
            }
            guard value != 0, let scalar = Unicode.Scalar(value) else { return invalid(2 + digits) }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
            return .success(index + 2 + digits)
        default:
            // Name the whole (possibly multi-byte) character after the backslash.
            var end = index + 2
            while end < count, bytes[end] & 0xC0 == 0x80 { end += 1 }
            return invalid(end - index)
        }
        return .success(index + 2)
    }
}
