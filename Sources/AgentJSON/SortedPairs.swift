// SPDX-License-Identifier: Apache-2.0

/// An object's pairs as JSONEncoder writes them with `.sortedKeys`: one per key, the value last
/// encoded for it, ordered by the keys' UTF-8 bytes (swift-foundation's JSONWriter compares
/// `a.key.utf8.lexicographicallyPrecedes(b.key.utf8)`: "B" < "a" < "a1" < "a10" < "a2" < "é").
enum SortedPairs {
    static func of(_ object: EncodedObject) -> [(key: String, value: EncodedValue)] {
        let pairs = object.hasNonASCIIKey ? mergedAsStrings(object.pairs) : object.pairs
        guard pairs.count > 1 else { return pairs }
        // Sort positions, not pairs, so equal keys stay in encoding order and the last one wins.
        let order = pairs.indices.sorted { a, b in
            let left = pairs[a].key, right = pairs[b].key
            if left.utf8.elementsEqual(right.utf8) { return a < b }
            return left.utf8.lexicographicallyPrecedes(right.utf8)
        }
        var result: [(key: String, value: EncodedValue)] = []
        result.reserveCapacity(order.count)
        for (position, index) in order.enumerated() {
            let isOverwritten = position + 1 < order.count
                && pairs[order[position + 1]].key.utf8.elementsEqual(pairs[index].key.utf8)
            if !isOverwritten { result.append(pairs[index]) }
        }
        return result
    }

    /// Keys that are equal as Swift strings but not byte for byte (a precomposed and a decomposed
    /// "é") are one key in JSONEncoder's dictionary: the first spelling, the last value.
    private static func mergedAsStrings(_ pairs: [(key: String, value: EncodedValue)]) -> [(key: String, value: EncodedValue)] {
        var positions: [String: Int] = [:]
        var merged: [(key: String, value: EncodedValue)] = []
        for pair in pairs {
            if let position = positions[pair.key] {
                merged[position].value = pair.value
            } else {
                positions[pair.key] = merged.count
                merged.append(pair)
            }
        }
        return merged
    }
}
