// SPDX-License-Identifier: Apache-2.0

/// An unkeyed container over an array, read in order; a value that fails to decode is not
/// consumed (`currentIndex` stays on it), as the protocol says.
struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let items: [ScannedValue]
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, items: [ScannedValue]) {
        self.decoder = decoder
        self.items = items
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var currentPath: [any CodingKey] { codingPath + [JSONCodingKey(intValue: currentIndex)] }

    private func next<T>(_ type: T.Type, _ message: String = "Unkeyed container is at end.") throws -> ScannedValue {
        guard currentIndex < items.count else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: currentPath, debugDescription: message))
        }
        return items[currentIndex]
    }

    private mutating func take<T>(_ read: (ValueDecoder, ScannedValue, [any CodingKey]) throws -> T) throws -> T {
        let result = try read(decoder, next(T.self), currentPath)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try next(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try take { try $0.readBool($1, at: $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try take { try $0.readString($1, at: $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try take { try $0.readFloating($1, type, at: $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try take { try $0.readFloating($1, type, at: $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try take { try $0.readInteger($1, type, at: $2) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try take { try $0.read($1, type, at: $2) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let found = try next(KeyedDecodingContainer<NestedKey>.self, "Cannot get nested keyed container -- unkeyed container is at end.")
        let container = try ValueDecoder(input: decoder.input, value: found, codingPath: currentPath).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let found = try next(UnkeyedDecodingContainer.self, "Cannot get nested unkeyed container -- unkeyed container is at end.")
        let container = try ValueDecoder(input: decoder.input, value: found, codingPath: currentPath).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let found = try next((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.")
        let superDecoder = ValueDecoder(input: decoder.input, value: found, codingPath: currentPath)
        currentIndex += 1
        return superDecoder
    }
}
