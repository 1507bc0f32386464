// SPDX-License-Identifier: Apache-2.0

/// Decodes a `Decodable` value from JSON bytes (RFC 8259, UTF-8) with the rules of
/// FoundationEssentials' `JSONDecoder` and only the standard library. Made for bytes from the
/// control socket, which any allowed local user writes: nesting is limited to 512 levels, work is
/// linear in the input, and every malformed input is a `DecodingError`, never a trap.
public struct JSONLineDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let top: ScannedValue
        do {
            top = try JSONScanner.scan(bytes)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not valid JSON: \(error)", underlyingError: error))
        }
        return try ValueDecoder(input: bytes, value: top, codingPath: []).decode(type)
    }
}
