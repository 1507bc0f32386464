// SPDX-License-Identifier: Apache-2.0

/// The `Decoder` one value is decoded with, and its single-value container. Errors are
/// JSONDecoder's: `typeMismatch`, `valueNotFound` for null, `keyNotFound`, `dataCorrupted` for a
/// string or number that turns out not to be JSON, each with the coding path of the value.
final class ValueDecoder: Decoder, SingleValueDecodingContainer {
    let input: [UInt8]
    let value: ScannedValue
    let codingPath: [any CodingKey]

    init(input: [UInt8], value: ScannedValue, codingPath: [any CodingKey]) {
        self.input = input
        self.value = value
        self.codingPath = codingPath
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let members):
            return KeyedDecodingContainer(try KeyedDecoder<Key>(decoder: self, members: members))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw mismatch([String: Any].self, value, at: codingPath)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let items):
            return UnkeyedDecoder(decoder: self, items: items)
        case .null:
            throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw mismatch([Any].self, value, at: codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: reading one value (shared by the three containers)

    func mismatch(_ type: Any.Type, _ found: ScannedValue, at path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(type) but found \(found.kindDescription) instead."))
    }

    private func checkNotNull<T>(_ found: ScannedValue, _ type: T.Type, at path: [any CodingKey]) throws {
        if case .null = found {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: path, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
    }

    func corrupted(_ error: any Error, at path: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path, debugDescription: "The given data was not valid JSON: \(error)", underlyingError: error))
    }

    func readBool(_ found: ScannedValue, at path: [any CodingKey]) throws -> Bool {
        try checkNotNull(found, Bool.self, at: path)
        guard case .bool(let flag) = found else { throw mismatch(Bool.self, found, at: path) }
        return flag
    }

    func readString(_ found: ScannedValue, at path: [any CodingKey]) throws -> String {
        try checkNotNull(found, String.self, at: path)
        guard case .string(let range, let isSimple) = found else { throw mismatch(String.self, found, at: path) }
        do {
            return try StringReading.text(input, range, isSimple: isSimple)
        } catch {
            throw corrupted(error, at: path)
        }
    }

    func readInteger<T: FixedWidthInteger>(_ found: ScannedValue, _ type: T.Type, at path: [any CodingKey]) throws -> T {
        try checkNotNull(found, type, at: path)
        guard case .number(let range) = found else { throw mismatch(type, found, at: path) }
        do {
            return try NumberReading.integer(input, range, as: type)
        } catch let error as NumberReading.NotRepresentable {
            throw notRepresentable(error, type, at: path)
        } catch {
            throw corrupted(error, at: path)
        }
    }

    func readFloating<T: BinaryFloatingPoint & LosslessStringConvertible>(_ found: ScannedValue, _ type: T.Type,
                                                                         at path: [any CodingKey]) throws -> T {
        try checkNotNull(found, type, at: path)
        guard case .number(let range) = found else { throw mismatch(type, found, at: path) }
        do {
            return try NumberReading.floating(input, range, as: type)
        } catch let error as NumberReading.NotRepresentable {
            throw notRepresentable(error, type, at: path)
        } catch {
            throw corrupted(error, at: path)
        }
    }

    /// JSONDecoder's error for a number the type cannot hold.
    private func notRepresentable(_ error: NumberReading.NotRepresentable, _ type: Any.Type,
                                  at path: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path, debugDescription: "Number \(error.text) is not representable in Swift as \(type).",
            underlyingError: error))
    }

    func read<T: Decodable>(_ found: ScannedValue, _ type: T.Type, at path: [any CodingKey]) throws -> T {
        try T(from: ValueDecoder(input: input, value: found, codingPath: path))
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try readBool(value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try readString(value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try readFloating(value, type, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try readFloating(value, type, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try readInteger(value, type, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: Int128.Type) throws -> Int128 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try readInteger(value, type, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try readInteger(value, type, at: codingPath) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try readInteger(value, type, at: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}
