// SPDX-License-Identifier: Apache-2.0

/// Why the input is not JSON, with the byte offset where that was found.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let reason: String
    let offset: Int

    var description: String { "\(reason) at byte \(offset)" }
}

/// Reads the structure of a JSON text (RFC 8259) as swift-foundation's JSONScanner does: any
/// value at the top, whitespace around it, nothing after it, a trailing comma in a container taken, containers nested at most 512 deep
/// (so hostile input costs a bounded stack). Each byte is looked at a bounded number of times.
struct JSONScanner {
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func scan(_ bytes: [UInt8]) throws -> ScannedValue {
        var scanner = JSONScanner(bytes: bytes)
        // A UTF-8 byte order mark is skipped, as JSONDecoder does.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { scanner.index = 3 }
        let value = try scanner.scanValue()
        while scanner.index < bytes.count {
            guard Self.isWhitespace(bytes[scanner.index]) else {
                throw scanner.error("unexpected character after top-level value")
            }
            scanner.index += 1
        }
        return value
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: index)
    }

    /// The next byte that is not whitespace (not consumed).
    private mutating func peekNonWhitespace() throws -> UInt8 {
        while index < bytes.count {
            let byte = bytes[index]
            if !Self.isWhitespace(byte) { return byte }
            index += 1
        }
        throw error("unexpected end of input")
    }

    private mutating func scanValue() throws -> ScannedValue {
        switch try peekNonWhitespace() {
        case UInt8(ascii: "\""): return try scanString()
        case UInt8(ascii: "{"): return try scanObject()
        case UInt8(ascii: "["): return try scanArray()
        case UInt8(ascii: "t"): return try scanLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try scanLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try scanLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return scanNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func scanLiteral(_ word: StaticString, _ value: ScannedValue) throws -> ScannedValue {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("unexpected end of input") }
        let matches = word.withUTF8Buffer { expected in
            expected.indices.allSatisfy { expected[$0] == bytes[index + $0] }
        }
        guard matches else { throw error("invalid literal") }
        index += count
        return value
    }

    private mutating func enter() throws {
        guard depth < Self.maximumDepth else { throw error("too many nested arrays or dictionaries") }
        depth += 1
    }

    private mutating func scanArray() throws -> ScannedValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [ScannedValue] = []
        if try peekNonWhitespace() == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try scanValue())
            switch try peekNonWhitespace() {
            case UInt8(ascii: ","):
                index += 1
                // JSONScanner takes a trailing comma.
                if try peekNonWhitespace() == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
            case UInt8(ascii: "]"):
                index += 1
                return .array(items)
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func scanObject() throws -> ScannedValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [ScannedValue] = []
        if try peekNonWhitespace() == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            guard try peekNonWhitespace() == UInt8(ascii: "\"") else { throw error("expected a key in object") }
            members.append(try scanString())
            guard try peekNonWhitespace() == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            index += 1
            members.append(try scanValue())
            switch try peekNonWhitespace() {
            case UInt8(ascii: ","):
                index += 1
                if try peekNonWhitespace() == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    /// Finds the closing quote; escapes are only checked for shape here (a byte after `\`, four
    /// after `\u` none of which is a quote), the rest when the string is read.
    private mutating func scanString() throws -> ScannedValue {
        index += 1
        let start = index
        var isSimple = true
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return .string(start..<(index - 1), isSimple: isSimple)
            case UInt8(ascii: "\\"):
                isSimple = false
                guard index + 1 < bytes.count else { throw error("unexpected end of input in string") }
                index += 2
                if bytes[index - 1] == UInt8(ascii: "u") {
                    guard bytes.count - index >= 4 else { throw error("unexpected end of input in string") }
                    guard !bytes[index..<(index + 4)].contains(UInt8(ascii: "\"")) else {
                        throw error("invalid \\u escape")
                    }
                    index += 4
                }
            default:
                if byte < 0x20 { isSimple = false }
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// Takes the bytes a number can hold; whether they form one is checked when it is read.
    private mutating func scanNumber() -> ScannedValue {
        let start = index
        index += 1
        scanning: while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                index += 1
            default:
                break scanning
            }
        }
        return .number(start..<index)
    }
}
