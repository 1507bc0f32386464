// SPDX-License-Identifier: Apache-2.0

/// Strings compared by their UTF-8 bytes, as JSONEncoder orders keys, through the strings' own
/// contiguous storage: the generic `UTF8View` walks were a tenth of encoding a `status` answer.
enum UTF8Order {
    /// Negative, zero or positive as `left`'s bytes sort before, equal or after `right`'s.
    static func compare(_ left: String, _ right: String) -> Int {
        let fast = left.utf8.withContiguousStorageIfAvailable { a in
            right.utf8.withContiguousStorageIfAvailable { b in compare(a, b) }
        }
        if let fast = fast ?? nil { return fast }
        if left.utf8.elementsEqual(right.utf8) { return 0 }
        return left.utf8.lexicographicallyPrecedes(right.utf8) ? -1 : 1
    }

    static func isASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 } }
            ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        for index in 0..<min(a.count, b.count) where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return a.count - b.count
    }
}
