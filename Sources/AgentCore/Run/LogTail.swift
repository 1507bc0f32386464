// SPDX-License-Identifier: Apache-2.0
/// The last lines of a run's log output, bounded both in lines and in bytes (DESIGN §5: "kept in
/// a bounded per-run tail"), so that a flooding plugin grows no memory.
///
/// A ring: appending to a full tail overwrites the oldest line, and ``droppedLines`` counts every
/// line that left the tail (or never entered it). Bytes are the lines' UTF-8 bytes.
public struct LogTail: Sendable {
    public let maxLines: Int
    public let maxBytes: Int
    /// Lines evicted to make room, plus lines refused outright by a zero-sized tail.
    public private(set) var droppedLines: Int = 0
    /// UTF-8 bytes currently held.
    public private(set) var byteCount: Int = 0
    /// Lines currently held.
    public private(set) var count: Int = 0

    private var ring: [String]
    /// Index in `ring` of the oldest line.
    private var head = 0

    /// Negative limits are taken as zero: a tail that keeps nothing and counts every line dropped.
    public init(maxLines: Int = 50, maxBytes: Int = 64 * 1024) {
        self.maxLines = max(0, maxLines)
        self.maxBytes = max(0, maxBytes)
        // Empty strings are stored inline, so the ring costs one small array up front and never
        // reallocates afterwards.
        ring = Array(repeating: "", count: self.maxLines)
    }

    /// The lines held, oldest first.
    public var lines: [String] {
        var result: [String] = []
        result.reserveCapacity(count)
        for offset in 0..<count {
            result.append(ring[(head + offset) % maxLines])
        }
        return result
    }

    /// Adds `line` as the newest, evicting the oldest lines until both limits hold. A line longer
    /// than `maxBytes` on its own is cut to at most `maxBytes` (at a character boundary) rather
    /// than refused: the newest output is the most useful.
    public mutating func append(_ line: String) {
        guard maxLines > 0, maxBytes > 0 else {
            droppedLines += 1
            return
        }
        let kept = line.utf8.count <= maxBytes ? line : Self.prefix(of: line, bytes: maxBytes)
        let size = kept.utf8.count
        if count == maxLines { evictOldest() }
        while count > 0, byteCount + size > maxBytes { evictOldest() }
        ring[(head + count) % maxLines] = kept
        count += 1
        byteCount += size
    }

    private mutating func evictOldest() {
        byteCount -= ring[head].utf8.count
        ring[head] = ""  // release the string now, not when the slot is reused
        head = (head + 1) % maxLines
        count -= 1
        droppedLines += 1
    }

    /// The longest prefix of `text` of at most `bytes` UTF-8 bytes that ends on a scalar boundary.
    private static func prefix(of text: String, bytes: Int) -> String {
        let utf8 = Array(text.utf8)
        var end = min(bytes, utf8.count)
        // `text` is valid UTF-8, so backing off continuation bytes lands on a scalar's start.
        while end > 0, end < utf8.count, utf8[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: utf8[0..<end], as: UTF8.self)
    }
}
