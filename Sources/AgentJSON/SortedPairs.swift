// SPDX-License-Identifier: Apache-2.0

/// An object's pairs as JSONEncoder writes them with `.sortedKeys`: one per key, the value last
/// encoded for it, ordered by the keys' UTF-8 bytes (swift-foundation's JSONWriter compares
/// `a.key.utf8.lexicographicallyPrecedes(b.key.utf8)`: "B" < "a" < "a1" < "a10" < "a2" < "é").
enum SortedPairs {
    typealias Pair = (key: String, value: EncodedValue)

    /// Objects up to this size are sorted in place by insertion (most have a dozen keys or fewer);
    /// larger ones by position, so that a dictionary of many keys takes n log n.
    static let insertionLimit = 24

    /// Sorts `object`'s pairs by key, equal keys in encoding order, and returns them with each
    /// key once. The object is the writer's to reorder: it is written once.
    static func of(_ object: EncodedObject) -> [Pair] {
        if object.hasNonASCIIKey { object.pairs = mergedAsStrings(object.pairs) }
        guard object.pairs.count > 1 else { return object.pairs }
        if object.pairs.count <= insertionLimit {
            insertionSort(&object.pairs)
        } else {
            object.pairs = sortedByPosition(object.pairs)
        }
        return withoutOverwritten(object.pairs)
    }

    /// Stable: a pair moves left only past strictly greater keys.
    private static func insertionSort(_ pairs: inout [Pair]) {
        for end in 1..<pairs.count {
            var index = end
            while index > 0, UTF8Order.compare(pairs[index - 1].key, pairs[index].key) > 0 {
                pairs.swapAt(index - 1, index)
                index -= 1
            }
        }
    }

    /// Sort positions, not pairs, so equal keys stay in encoding order.
    private static func sortedByPosition(_ pairs: [Pair]) -> [Pair] {
        let order = pairs.indices.sorted { a, b in
            let order = UTF8Order.compare(pairs[a].key, pairs[b].key)
            return order == 0 ? a < b : order < 0
        }
        return order.map { pairs[$0] }
    }

    /// The last pair of each run of equal keys (the value encoded last wins).
    private static func withoutOverwritten(_ sorted: [Pair]) -> [Pair] {
        var hasRepeat = false
        for index in 1..<sorted.count where UTF8Order.compare(sorted[index - 1].key, sorted[index].key) == 0 {
            hasRepeat = true
            break
        }
        guard hasRepeat else { return sorted }
        var result: [Pair] = []
        result.reserveCapacity(sorted.count)
        for index in sorted.indices {
            let isOverwritten = index + 1 < sorted.count
                && UTF8Order.compare(sorted[index + 1].key, sorted[index].key) == 0
            if !isOverwritten { result.append(sorted[index]) }
        }
        return result
    }

    /// Keys that are equal as Swift strings but not byte for byte (a precomposed and a decomposed
    /// "é") are one key in JSONEncoder's dictionary: the first spelling, the last value.
    private static func mergedAsStrings(_ pairs: [Pair]) -> [Pair] {
        var positions: [String: Int] = [:]
        var merged: [Pair] = []
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
