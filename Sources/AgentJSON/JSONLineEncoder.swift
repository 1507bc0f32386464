// SPDX-License-Identifier: Apache-2.0

/// Encodes an `Encodable` value to the bytes FoundationEssentials' `JSONEncoder` writes with
/// `outputFormatting = [.sortedKeys, .withoutEscapingSlashes]` (or with `.prettyPrinted` too),
/// using only the standard library: the agent answering a request does not page in Foundation's
/// JSON code.
public struct JSONLineEncoder: Sendable {
    /// JSONEncoder's `.prettyPrinted`: two spaces per level, `"key" : value`.
    public var prettyPrinted: Bool

    public init(prettyPrinted: Bool = false) {
        self.prettyPrinted = prettyPrinted
    }

    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = ValueEncoder(parent: nil, prefix: [], key: nil)
        try value.encode(to: encoder)
        guard let top = encoder.value else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        var writer = JSONWriter(pretty: prettyPrinted)
        do {
            try writer.write(top)
        } catch {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Unable to encode the given top-level value to JSON."))
        }
        return writer.bytes
    }
}
