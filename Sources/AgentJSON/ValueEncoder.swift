// SPDX-License-Identifier: Apache-2.0

/// The `Encoder` one value is encoded with; it holds what the value became. A child is made for
/// each nested `Encodable`, knowing its parent and key only for `codingPath`.
final class ValueEncoder: Encoder {
    var value: EncodedValue?
    private let parent: ValueEncoder?
    /// The keys of the containers between the parent encoder and this value (a nested
    /// container's keys; usually none), then this value's own key.
    private let prefix: [any CodingKey]
    private let key: (any CodingKey)?

    init(parent: ValueEncoder?, prefix: [any CodingKey], key: (any CodingKey)?) {
        self.parent = parent
        self.prefix = prefix
        self.key = key
    }

    var codingPath: [any CodingKey] {
        guard let parent, let key else { return [] }
        return parent.codingPath + prefix + [key]
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    // A container asked for again is the same one, as in JSONEncoder. Asking for a different kind
    // than what was encoded is a programming error JSONEncoder traps on; here the new one replaces it.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodedObject
        if case .object(let existing) = value {
            object = existing
        } else {
            object = EncodedObject()
            value = .object(object)
        }
        return KeyedEncodingContainer(KeyedEncoder<Key>(encoder: self, object: object, path: []))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if case .array(let existing) = value {
            array = existing
        } else {
            array = EncodedArray()
            value = .array(array)
        }
        return UnkeyedEncoder(encoder: self, array: array, path: [])
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncoder(encoder: self)
    }

    /// What `value` encodes to, through a child encoder at `key` (nothing encoded is `{}`, as in
    /// JSONEncoder).
    func encodeChild<T: Encodable>(_ value: T, at path: [any CodingKey], key: any CodingKey) throws -> EncodedValue {
        let child = ValueEncoder(parent: self, prefix: path, key: key)
        try value.encode(to: child)
        return child.value ?? .object(EncodedObject())
    }

    /// A `superEncoder`'s: its value is read when the document is written.
    func deferredChild(at path: [any CodingKey], key: any CodingKey) -> ValueEncoder {
        ValueEncoder(parent: self, prefix: path, key: key)
    }

    /// JSONEncoder's error for a NaN or infinite number.
    func nonFinite<T: BinaryFloatingPoint>(_ number: T, at path: [any CodingKey], key: (any CodingKey)?) -> EncodingError {
        EncodingError.invalidValue(number, EncodingError.Context(
            codingPath: codingPath + path + (key.map { [$0] } ?? []),
            debugDescription: "Unable to encode \(T.self).\(number) directly in JSON."))
    }
}
