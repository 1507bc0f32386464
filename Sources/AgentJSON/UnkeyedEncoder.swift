// SPDX-License-Identifier: Apache-2.0

/// An unkeyed container: values appended to the array in order.
struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let array: EncodedArray
    /// Keys of the nested containers from the encoder to this one.
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }
    var count: Int { array.items.count }

    private var indexKey: JSONCodingKey { JSONCodingKey(intValue: array.items.count) }

    mutating func encodeNil() throws { array.items.append(.null) }
    mutating func encode(_ value: Bool) throws { array.items.append(.bool(value)) }
    mutating func encode(_ value: String) throws { array.items.append(.string(value)) }
    mutating func encode(_ value: Int) throws { array.items.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { array.items.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { array.items.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { array.items.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { array.items.append(.signed(value)) }
    mutating func encode(_ value: Int128) throws { array.items.append(NumberText.signed(value)) }
    mutating func encode(_ value: UInt) throws { array.items.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { array.items.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { array.items.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { array.items.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { array.items.append(.unsigned(value)) }
    mutating func encode(_ value: UInt128) throws { array.items.append(NumberText.unsigned(value)) }

    mutating func encode(_ value: Double) throws {
        guard let text = NumberText.floating(value) else { throw encoder.nonFinite(value, at: path, key: indexKey) }
        array.items.append(.number(text))
    }

    mutating func encode(_ value: Float) throws {
        guard let text = NumberText.floating(value) else { throw encoder.nonFinite(value, at: path, key: indexKey) }
        array.items.append(.number(text))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.items.append(try encoder.encodeChild(value, at: path, key: indexKey))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = indexKey
        let nested = EncodedObject()
        array.items.append(.object(nested))
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(encoder: encoder, object: nested, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = indexKey
        let nested = EncodedArray()
        array.items.append(.array(nested))
        return UnkeyedEncoder(encoder: encoder, array: nested, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.deferredChild(at: path, key: indexKey)
        array.items.append(.deferred(child))
        return child
    }
}
