// SPDX-License-Identifier: Apache-2.0

/// A keyed container: each key's value goes into the object (JSONEncoder writes `key.stringValue`,
/// so `[Int: X]` becomes an object with the numbers as keys).
struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let object: EncodedObject
    /// Keys of the nested containers from the encoder to this one.
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }

    mutating func encodeNil(forKey key: Key) throws { object.set(.null, for: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { object.set(.bool(value), for: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { object.set(.string(value), for: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { object.set(.signed(Int64(value)), for: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { object.set(.signed(Int64(value)), for: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { object.set(.signed(Int64(value)), for: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { object.set(.signed(Int64(value)), for: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { object.set(.signed(value), for: key.stringValue) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { object.set(NumberText.signed(value), for: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { object.set(.unsigned(UInt64(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { object.set(.unsigned(UInt64(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { object.set(.unsigned(UInt64(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { object.set(.unsigned(UInt64(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { object.set(.unsigned(value), for: key.stringValue) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { object.set(NumberText.unsigned(value), for: key.stringValue) }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard let text = NumberText.floating(value) else { throw encoder.nonFinite(value, at: path, key: key) }
        object.set(.number(text), for: key.stringValue)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        guard let text = NumberText.floating(value) else { throw encoder.nonFinite(value, at: path, key: key) }
        object.set(.number(text), for: key.stringValue)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(try encoder.encodeChild(value, at: path, key: key), for: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey> {
        let nested: EncodedObject
        if case .object(let existing)? = object.last(for: key.stringValue) {
            nested = existing
        } else {
            nested = EncodedObject()
            object.set(.object(nested), for: key.stringValue)
        }
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(encoder: encoder, object: nested, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: EncodedArray
        if case .array(let existing)? = object.last(for: key.stringValue) {
            nested = existing
        } else {
            nested = EncodedArray()
            object.set(.array(nested), for: key.stringValue)
        }
        return UnkeyedEncoder(encoder: encoder, array: nested, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(key: JSONCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(key: key)
    }

    private func superEncoder(key: any CodingKey) -> any Encoder {
        let child = encoder.deferredChild(at: path, key: key)
        object.set(.deferred(child), for: key.stringValue)
        return child
    }
}
