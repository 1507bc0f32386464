// SPDX-License-Identifier: Apache-2.0
/// A task identifier: 1 to 255 bytes of `A-Z a-z 0-9 . _ -`, reverse-DNS by convention
/// (`com.example.photos.cleanup`). The same rule applies to job definitions, manifests,
/// `OnSuccess=`, submissions and `Deny=`.
public struct Identifier: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    CustomStringConvertible
{
    public static let maximumLength = 255
    /// The character rule, as error messages state it.
    public static let rule = "use A-Z a-z 0-9 . _ -, at most 255 bytes, dot-separated components "
        + "that are never empty, e.g. com.example.task"

    public let rawValue: String

    public init?(rawValue: String) {
        guard Self.problem(with: rawValue) == nil else { return nil }
        self.rawValue = rawValue
    }

    /// Skips validation; only for strings already known to be valid.
    init(unchecked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Calls `body` with `a.`, `a.b.`, … for `a.b.c`: every prefix ending in a dot and followed
    /// by at least one byte — the only prefixes a wildcard pattern (`a.b.*`) can have. The one
    /// walk over an identifier's dots (the registry's wildcard index, job resolution).
    public func forEachDotPrefix(_ body: (String) -> Void) {
        let utf8 = rawValue.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let next = utf8.index(after: index)
            if utf8[index] == TextBytes.dot, next != utf8.endIndex {
                body(String(rawValue[..<next]))
            }
            index = next
        }
    }

    /// The identifiers this one extends by dot-separated parts, longest first: `a.b`, then `a`,
    /// for `a.b.c` (a submission's dynamic identifier resolves to the longest registered one).
    public var parents: [Identifier] {
        var result: [Identifier] = []
        forEachDotPrefix { prefix in
            // A prefix without its dot is itself valid: a non-empty run of allowed bytes.
            if prefix.utf8.count > 1 { result.append(Identifier(unchecked: String(prefix.dropLast()))) }
        }
        return result.reversed()
    }

    @inline(__always)
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2E, 0x5F, 0x2D: return true
        default: return false
        }
    }

    /// Why `raw` is not an identifier (a phrase that follows "is not an identifier: "), or nil
    /// when it is one.
    public static func problem(with raw: String) -> String? {
        let length = raw.utf8.count
        if length == 0 {
            return "it is empty (\(rule))"
        }
        if let bad = raw.utf8.firstIndex(where: { !isAllowed($0) }) {
            // Name the whole character, not a lone byte of a multi-byte sequence.
            let scalarIndex = bad.samePosition(in: raw.unicodeScalars)
                ?? raw.unicodeScalars.index(before: raw.unicodeScalars.endIndex)
            let scalar = raw.unicodeScalars[scalarIndex]
            let shown = TextBytes.quoted(String(Character(scalar)))
            return "\(shown) is not allowed (\(rule))"
        }
        if length > maximumLength {
            return "it is \(length) bytes long, at most \(maximumLength) are allowed"
        }
        // An empty component (`a..b`, `.a`, `a.`, `.`, `..`) names nothing reverse-DNS could,
        // and `.`/`..` would be path components where an identifier names a state directory.
        let utf8 = raw.utf8
        if utf8.first == TextBytes.dot || utf8.last == TextBytes.dot
            || zip(utf8, utf8.dropFirst()).contains(where: { $0 == TextBytes.dot && $1 == TextBytes.dot })
        {
            return "it has an empty dot-separated component (\(TextBytes.quoted(raw))); write components "
                + "with at least one byte between dots, e.g. com.example.task"
        }
        return nil
    }

    /// Byte order. Identifiers are ASCII, where String's own comparison is that order and takes
    /// its memcmp fast path (element-wise UTF-8 comparison was the cost of sorting thousands).
    public static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let value = Identifier(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\(TextBytes.quoted(raw)) is not an identifier: "
                    + (Identifier.problem(with: raw) ?? ""))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
