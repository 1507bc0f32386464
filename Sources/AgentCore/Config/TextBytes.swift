// SPDX-License-Identifier: Apache-2.0
/// Byte-level helpers shared by the config parsers. Everything here works on UTF-8 bytes rather
/// than `Character`s: grapheme breaking is far slower and never needed for ASCII syntax.
enum TextBytes {
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let backslash: UInt8 = 0x5C
    static let doubleQuote: UInt8 = 0x22
    static let singleQuote: UInt8 = 0x27
    static let equals: UInt8 = 0x3D
    static let hash: UInt8 = 0x23
    static let semicolon: UInt8 = 0x3B
    static let dot: UInt8 = 0x2E
    static let slash: UInt8 = 0x2F

    /// systemd's WHITESPACE set: space, tab, newline, carriage return.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || byte == newline || byte == carriageReturn
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// The value of a hexadecimal digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: return UInt32(byte - 0x30)
        case 0x41...0x46: return UInt32(byte - 0x41 + 10)
        case 0x61...0x66: return UInt32(byte - 0x61 + 10)
        default: return nil
        }
    }

    /// `range` with systemd whitespace removed at both ends.
    static func trimmed(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower, isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// Offset of the first byte in `range` that is not part of well-formed UTF-8 (RFC 3629: no
    /// overlong forms, no surrogates, nothing above U+10FFFF), or nil when the range is valid.
    static func firstInvalidUTF8(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        let end = range.upperBound
        while index < end {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            var needed = 0
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: needed = 1
            case 0xE0: needed = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: needed = 2
            case 0xED: needed = 2; high = 0x9F
            case 0xF0: needed = 3; low = 0x90
            case 0xF1...0xF3: needed = 3
            case 0xF4: needed = 3; high = 0x8F
            default: return index
            }
            guard index + needed < end else { return index }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return index }
            var offset = 2
            while offset <= needed {
                let next = bytes[index + offset]
                guard next >= 0x80, next <= 0xBF else { return index }
                offset += 1
            }
            index += needed + 1
        }
        return nil
    }

    static func string(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// `"text"` for messages: quotes and backslashes escaped, control characters shown as escapes,
    /// and cut after `limit` bytes of the text (at a character boundary) so that a 1 MiB value
    /// cannot flood a log line and a diagnostic never quotes more than 80 bytes of a line.
    static func quoted(_ text: String, limit: Int = quoteLimit) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            if count + size > limit {
                out += "…"
                break
            }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += scalar.escaped(asASCII: true)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            count += size
        }
        return out + "\""
    }

    /// The most bytes of a config line a diagnostic shows (DESIGN §3).
    static let quoteLimit = 80

    /// A name taken from a file (an unknown key or section), unquoted but cut like `quoted`.
    static func shownName(_ text: String) -> String {
        guard text.utf8.count > quoteLimit else { return text }
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            if count + size > quoteLimit { break }
            out.unicodeScalars.append(scalar)
            count += size
        }
        return out + "…"
    }

    /// A path as it can be pasted into a shell command of an advice message.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.utf8.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
            case 0x2F, 0x2E, 0x5F, 0x2D, 0x2B, 0x3A, 0x40, 0x2C: return true
            default: return false
            }
        }
        if safe && !path.isEmpty { return path }
        var out = "'"
        for scalar in path.unicodeScalars {
            if scalar == "'" { out += "'\\''" } else { out.unicodeScalars.append(scalar) }
        }
        return out + "'"
    }

    /// ASCII lower-casing, enough for keywords such as booleans and unit names.
    static func asciiLowercased(_ text: String) -> String {
        var bytes = Array(text.utf8)
        for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A {
            bytes[index] += 0x20
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
