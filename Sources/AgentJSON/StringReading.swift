// SPDX-License-Identifier: Apache-2.0

/// A scanned string's text: its bytes must be UTF-8 and hold no raw control character; the
/// escapes are RFC 8259's, `\u` surrogates in pairs (JSONScanner.stringValue's rules).
enum StringReading {
    static func text(_ bytes: [UInt8], _ range: Range<Int>, isSimple: Bool) throws -> String {
        if isSimple { return try validated(bytes, range) }
        var output = ""
        var chunkStart = range.lowerBound
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                output += try validated(bytes, chunkStart..<index)
                index = try unescape(bytes, from: index + 1, end: range.upperBound, into: &output)
                chunkStart = index
            } else {
                guard byte >= 0x20 else {
                    throw JSONSyntaxError(reason: "unescaped control character in string", offset: index)
                }
                index += 1
            }
        }
        output += try validated(bytes, chunkStart..<range.upperBound)
        return output
    }

    private static func validated(_ bytes: [UInt8], _ range: Range<Int>) throws -> String {
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw JSONSyntaxError(reason: "string is not valid UTF-8", offset: range.lowerBound)
        }
        return text
    }

    /// Appends the character the escape at `index` (just after the backslash) stands for; returns
    /// the index after it. The scanner made sure the escape's bytes are there.
    private static func unescape(_ bytes: [UInt8], from index: Int, end: Int, into output: inout String) throws -> Int {
        guard index < end else { throw JSONSyntaxError(reason: "unexpected end of string", offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "\""): output.append("\"")
        case UInt8(ascii: "\\"): output.append("\\")
        case UInt8(ascii: "/"): output.append("/")
        case UInt8(ascii: "b"): output.append("\u{08}")
        case UInt8(ascii: "f"): output.append("\u{0C}")
        case UInt8(ascii: "n"): output.append("\n")
        case UInt8(ascii: "r"): output.append("\r")
        case UInt8(ascii: "t"): output.append("\t")
        case UInt8(ascii: "u"): return try unescapeUnicode(bytes, from: index + 1, end: end, into: &output)
        default: throw JSONSyntaxError(reason: "invalid escape", offset: index)
        }
        return index + 1
    }

    private static func unescapeUnicode(_ bytes: [UInt8], from index: Int, end: Int, into output: inout String) throws -> Int {
        let unit = try hexUnit(bytes, at: index, end: end)
        let next = index + 4
        if UTF16.isLeadSurrogate(unit) {
            guard end - next >= 2, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                throw JSONSyntaxError(reason: "expected a low surrogate after a high one", offset: next)
            }
            let trail = try hexUnit(bytes, at: next + 2, end: end)
            guard UTF16.isTrailSurrogate(trail) else {
                throw JSONSyntaxError(reason: "expected a low surrogate after a high one", offset: next + 2)
            }
            let scalar = UTF16.decode(UTF16.EncodedScalar([unit, trail]))
            output.unicodeScalars.append(scalar)
            return next + 6
        }
        guard let scalar = Unicode.Scalar(unit) else {
            throw JSONSyntaxError(reason: "\\u escape of a lone low surrogate", offset: index)
        }
        output.unicodeScalars.append(scalar)
        return next
    }

    private static func hexUnit(_ bytes: [UInt8], at index: Int, end: Int) throws -> UInt16 {
        guard end - index >= 4 else { throw JSONSyntaxError(reason: "unexpected end of \\u escape", offset: index) }
        var unit: UInt16 = 0
        for byte in bytes[index..<(index + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONSyntaxError(reason: "invalid hex digit in \\u escape", offset: index)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }
}
