// SPDX-License-Identifier: Apache-2.0

/// A keyed container over an object: every key is read when the container is made (a key that is
/// not valid text fails then, as in JSONDecoder), and the first of two equal keys wins.
struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    private let values: [String: ScannedValue]

    init(decoder: ValueDecoder, members: [ScannedValue]) throws {
        self.decoder = decoder
        var values: [String: ScannedValue] = [:]
        values.reserveCapacity(members.count / 2)
        var index = 0
        while index + 1 < members.count {
            let key = try decoder.readString(members[index], at: decoder.codingPath)
            if values[key] == nil { values[key] = members[index + 1] }
            index += 2
        }
        self.values = values
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

    private func value(for key: Key) throws -> ScannedValue {
        guard let found = values[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return found
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(for: key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.readBool(value(for: key), at: path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.readString(value(for: key), at: path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.readFloating(value(for: key), type, at: path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.readFloating(value(for: key), type, at: path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.readInteger(value(for: key), type, at: path(key)) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decoder.readInteger(value(for: key), type, at: path(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.read(value(for: key), type, at: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(input: decoder.input, value: value(for: key), codingPath: path(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(input: decoder.input, value: value(for: key), codingPath: path(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(input: decoder.input, value: values["super"] ?? .null, codingPath: codingPath + [JSONCodingKey.super])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(input: decoder.input, value: values[key.stringValue] ?? .null, codingPath: path(key))
    }
}
