// SPDX-License-Identifier: Apache-2.0
/// An entry of `PermittedIdentifiers=` or `Deny=`: an exact identifier (`com.example.sync`) or a
/// prefix wildcard (`com.example.*`). A wildcard is allowed only as the final `.*`, and it
/// matches identifiers that continue after the dot: `com.example.*` matches `com.example.a` and
/// `com.example.a.b`, but not `com.example` itself.
public enum IdentifierPattern: Hashable, Sendable, CustomStringConvertible, Codable {
    case exact(Identifier)
    /// The prefix including its trailing dot (`com.example.`).
    case prefix(String)

    public init?(rawValue: String) {
        guard Self.problem(with: rawValue) == nil else { return nil }
        let bytes = rawValue.utf8
        if bytes.last == 0x2A {  // "*"
            self = .prefix(String(rawValue.dropLast()))
        } else {
            self = .exact(Identifier(unchecked: rawValue))
        }
    }

    /// Why `raw` is not a pattern (a phrase that follows "is not an identifier pattern: "), or
    /// nil when it is one.
    public static func problem(with raw: String) -> String? {
        let bytes = Array(raw.utf8)
        let starCount = bytes.reduce(0) { $0 + ($1 == 0x2A ? 1 : 0) }
        if starCount == 0 {
            return Identifier.problem(with: raw)
        }
        if bytes == [0x2A] {
            return "a bare * would permit every identifier; put a prefix before it, "
                + "e.g. com.example.*"
        }
        let endsWithDotStar = bytes.count >= 2 && bytes[bytes.count - 1] == 0x2A
            && bytes[bytes.count - 2] == TextBytes.dot
        if starCount > 1 || !endsWithDotStar {
            if starCount == 1, bytes.last == 0x2A {
                return "* must follow a dot, as the final .* (e.g. "
                    + "\(String(decoding: bytes.dropLast(), as: UTF8.self)).*)"
            }
            return "* is allowed only once, as the final .* (e.g. com.example.*)"
        }
        let prefix = String(decoding: bytes.dropLast(), as: UTF8.self)
        if bytes.count == 2 {
            return "there is nothing before .*; put a prefix before it, e.g. com.example.*"
        }
        // The prefix keeps its final dot; the components before it follow the identifier rule.
        if let problem = Identifier.problem(with: String(decoding: bytes.dropLast(2), as: UTF8.self)) {
            return problem
        }
        if prefix.utf8.count > Identifier.maximumLength - 1 {
            return "the prefix is \(prefix.utf8.count) bytes long; no identifier of at most "
                + "\(Identifier.maximumLength) bytes could match it"
        }
        return nil
    }

    public func matches(_ id: Identifier) -> Bool {
        switch self {
        case .exact(let exact):
            return exact == id
        case .prefix(let prefix):
            let candidate = id.rawValue.utf8
            return candidate.count > prefix.utf8.count && candidate.starts(with: prefix.utf8)
        }
    }

    /// The pattern as written in a file.
    public var rawValue: String {
        switch self {
        case .exact(let id): return id.rawValue
        case .prefix(let prefix): return prefix + "*"
        }
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let value = IdentifierPattern(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\(TextBytes.quoted(raw)) is not an identifier pattern: "
                    + (IdentifierPattern.problem(with: raw) ?? ""))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
