// SPDX-License-Identifier: Apache-2.0

/// What an `Encodable` value became, before it is written: the tree JSONEncoder builds too, since
/// `.sortedKeys` needs all of an object's keys before the first is written.
enum EncodedValue {
    case null
    case bool(Bool)
    case signed(Int64)
    case unsigned(UInt64)
    /// A number already in its JSON form (Double, Float, 128-bit integers).
    case number(String)
    case string(String)
    case array(EncodedArray)
    case object(EncodedObject)
    /// A `superEncoder()`'s value, known only once its user has finished with it.
    case deferred(ValueEncoder)
}

/// An array being filled; a reference, so nested containers write into it after it is placed.
final class EncodedArray {
    var items: [EncodedValue] = []
}

/// An object being filled, its pairs in the order encoded; a key encoded again replaces the value
/// (the writer keeps the last), as JSONEncoder's dictionary does.
final class EncodedObject {
    var pairs: [(key: String, value: EncodedValue)] = []
    /// Whether some key is not ASCII: then two different byte sequences can be the same `String`
    /// (canonical equivalence), which the writer must treat as one key, as a Swift dictionary does.
    var hasNonASCIIKey = false

    func set(_ value: EncodedValue, for key: String) {
        if !hasNonASCIIKey, !UTF8Order.isASCII(key) { hasNonASCIIKey = true }
        pairs.append((key, value))
    }

    /// The value last encoded for `key`, for a nested container asked for again.
    func last(for key: String) -> EncodedValue? {
        pairs.last(where: { $0.key == key })?.value
    }
}
