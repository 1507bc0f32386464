// SPDX-License-Identifier: Apache-2.0

/// Writes an `EncodedValue` as JSONEncoder does with `.sortedKeys` and `.withoutEscapingSlashes`
/// (and `.prettyPrinted` when asked): keys ordered by their UTF-8 bytes, the escapes JSONWriter
/// uses, its indentation and `"key" : value` spacing.
struct JSONWriter {
    /// JSONWriter's limit: deeper containers are an error, not a deeper stack.
    static let maximumDepth = 512

    struct TooDeep: Error {}

    let pretty: Bool
    var bytes: [UInt8] = []
    private var indent = 0

    init(pretty: Bool) {
        self.pretty = pretty
    }

    mutating func write(_ value: EncodedValue, depth: Int = 0) throws {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .signed(let number):
            if number < 0 { bytes.append(UInt8(ascii: "-")) }
            NumberText.appendDigits(of: number.magnitude, to: &bytes)
        case .unsigned(let number): NumberText.appendDigits(of: number, to: &bytes)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): writeString(text)
        case .array(let array): try writeArray(array.items, depth: depth + 1)
        case .object(let object): try writeObject(object, depth: depth + 1)
        case .deferred(let encoder): try write(encoder.value ?? .object(EncodedObject()), depth: depth)
        }
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func writeArray(_ items: [EncodedValue], depth: Int) throws {
        guard depth < Self.maximumDepth else { throw TooDeep() }
        bytes.append(UInt8(ascii: "["))
        if pretty {
            bytes.append(0x0A)
            indent += 1
        }
        var first = true
        for item in items {
            if first {
                first = false
            } else {
                bytes.append(UInt8(ascii: ","))
                if pretty { bytes.append(0x0A) }
            }
            if pretty { writeIndent() }
            try write(item, depth: depth)
        }
        closePretty()
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ object: EncodedObject, depth: Int) throws {
        guard depth < Self.maximumDepth else { throw TooDeep() }
        let pairs = SortedPairs.of(object)
        bytes.append(UInt8(ascii: "{"))
        if pretty {
            bytes.append(0x0A)
            indent += 1
            if !pairs.isEmpty { writeIndent() }
        }
        var first = true
        for pair in pairs {
            if first {
                first = false
            } else {
                bytes.append(UInt8(ascii: ","))
                if pretty {
                    bytes.append(0x0A)
                    writeIndent()
                }
            }
            writeString(pair.key)
            if pretty { append(" : ") } else { bytes.append(UInt8(ascii: ":")) }
            try write(pair.value, depth: depth)
        }
        closePretty()
        bytes.append(UInt8(ascii: "}"))
    }

    /// The newline and indentation before a closing bracket (also of an empty container, which
    /// JSONEncoder writes as `[`, two newlines and the bracket).
    private mutating func closePretty() {
        guard pretty else { return }
        bytes.append(0x0A)
        indent -= 1
        writeIndent()
    }

    private mutating func writeIndent() {
        for _ in 0..<indent {
            bytes.append(0x20)
            bytes.append(0x20)
        }
    }

    mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var mark = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index]))
                appendEscape(for: byte)
                mark = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// JSONWriter's escapes: the short forms it knows, `\u00XX` with lowercase hex for the other
    /// control characters; `/` and everything from 0x7F up are written as they are.
    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            append("u00")
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ 0x30 : nibble &+ 0x57
    }
}
