// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Splits a byte stream into `\n`-terminated lines, holding at most one bounded partial line.
///
/// Lines are returned without their `\n`. A line longer than `maxLineBytes` (or a partial line that
/// already is) yields `.tooLong` once; its bytes are discarded up to and including the next `\n`, and
/// framing resumes after it. Nothing is decoded or validated here.
public struct LineFramer {
    /// One framing result.
    public enum Frame: Equatable, Sendable {
        /// A complete line, without its terminating `\n`.
        case line([UInt8])
        /// A line exceeded `maxLineBytes`; it is being discarded.
        case tooLong
    }

    /// The longest line accepted, in bytes, excluding the `\n`.
    public let maxLineBytes: Int
    private var buffer: [UInt8] = []
    /// Index of the first byte not yet returned.
    private var start = 0
    /// Index up to which the buffer is known to hold no `\n`.
    private var scanned = 0
    /// Dropping bytes of an oversized line until its `\n`.
    private var discarding = false

    public init(maxLineBytes: Int) {
        self.maxLineBytes = max(0, maxLineBytes)
    }

    /// Bytes held that do not yet form a complete line (or lines not yet taken).
    public var bufferedCount: Int { buffer.count - start }

    /// Appends bytes read from the stream.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// Appends bytes read from the stream.
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line, `.tooLong` for an oversized one, or nil when more bytes are needed.
    public mutating func next() -> Frame? {
        while true {
            guard let newline = findNewline() else {
                scanned = buffer.count
                if discarding {
                    compact(consumingTo: buffer.count)
                    return nil
                }
                if buffer.count - start > maxLineBytes {
                    discarding = true
                    compact(consumingTo: buffer.count)
                    return .tooLong
                }
                return nil
            }
            let lineStart = start
            compactLater(consumingTo: newline + 1)
            if discarding {
                discarding = false
                continue
            }
            if newline - lineStart > maxLineBytes {
                compactIfUseful()
                return .tooLong
            }
            let line = Array(buffer[lineStart..<newline])
            compactIfUseful()
            return .line(line)
        }
    }

    private func findNewline() -> Int? {
        let from = max(start, scanned)
        guard from < buffer.count else { return nil }
        return buffer.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress else { return nil }
            guard let hit = memchr(base + from, 0x0A, raw.count - from) else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
    }

    private mutating func compactLater(consumingTo index: Int) {
        start = index
        scanned = index
    }

    private mutating func compact(consumingTo index: Int) {
        start = index
        scanned = index
        compactIfUseful()
    }

    /// Drops consumed bytes when that is cheap relative to what remains.
    private mutating func compactIfUseful() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 16 << 10)  // a burst leaves no big buffer behind
            start = 0
            scanned = 0
        } else if start >= 4096 && start * 2 >= buffer.count {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
    }
}
