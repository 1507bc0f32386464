// SPDX-License-Identifier: Apache-2.0

/// The single-value container: the encoder's value itself. JSONEncoder traps when a second value
/// is encoded; here the second replaces the first.
struct SingleValueEncoder: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.value = .null }
    mutating func encode(_ value: Bool) throws { encoder.value = .bool(value) }
    mutating func encode(_ value: String) throws { encoder.value = .string(value) }
    mutating func encode(_ value: Int) throws { encoder.value = .signed(Int64(value)) }
    mutating func encode(_ value: Int8) throws { encoder.value = .signed(Int64(value)) }
    mutating func encode(_ value: Int16) throws { encoder.value = .signed(Int64(value)) }
    mutating func encode(_ value: Int32) throws { encoder.value = .signed(Int64(value)) }
    mutating func encode(_ value: Int64) throws { encoder.value = .signed(value) }
    mutating func encode(_ value: Int128) throws { encoder.value = NumberText.signed(value) }
    mutating func encode(_ value: UInt) throws { encoder.value = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { encoder.value = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { encoder.value = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { encoder.value = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.value = .unsigned(value) }
    mutating func encode(_ value: UInt128) throws { encoder.value = NumberText.unsigned(value) }

    mutating func encode(_ value: Double) throws {
        guard let text = NumberText.floating(value) else { throw encoder.nonFinite(value, at: [], key: nil) }
        encoder.value = .number(text)
    }

    mutating func encode(_ value: Float) throws {
        guard let text = NumberText.floating(value) else { throw encoder.nonFinite(value, at: [], key: nil) }
        encoder.value = .number(text)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        // The value is encoded with this same encoder, as JSONEncoder does (same coding path).
        encoder.value = nil
        try value.encode(to: encoder)
        if case .none = encoder.value { encoder.value = .object(EncodedObject()) }
    }
}
