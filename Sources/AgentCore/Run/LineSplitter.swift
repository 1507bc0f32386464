// SPDX-License-Identifier: Apache-2.0
/// Splits a plugin's output stream into lines, whatever the chunk boundaries, in bounded memory.
///
/// Feed it each chunk read from a pipe; it calls `emit` once per complete line, without the
/// `\n`. A line longer than ``maxLineBytes`` is emitted once, cut to at most that length (at a
/// UTF-8 character boundary), as soon as it is known to be too long; the rest of it, up to the
/// next `\n`, is discarded and ``truncatedLines`` counts it. So a plugin that writes 5 MB without
/// a newline costs at most `maxLineBytes` of memory and shows up in the log at once.
///
/// Emitted buffers are borrowed: a line lying wholly inside a chunk is passed straight from the
/// chunk with no copy, so they are valid only during the `emit` call. Only the unfinished line
/// at the end of a chunk is copied, into a buffer that never holds more than `maxLineBytes`.
public struct LineSplitter: Sendable {
    /// The length lines are cut to, in bytes (DESIGN §5: 4096).
    public let maxLineBytes: Int
    /// Lines emitted, truncated ones included.
    public private(set) var lines: Int = 0
    /// Lines that were longer than ``maxLineBytes`` and emitted cut.
    public private(set) var truncatedLines: Int = 0

    /// The start of a line whose `\n` has not arrived yet; never longer than `maxLineBytes` (one
    /// more for a `\r` while its `\n` is being read).
    private var pending: [UInt8] = []
    /// True between cutting an overlong line and the `\n` that ends it.
    private var discarding = false

    /// `maxLineBytes` below 1 is taken as 1: a splitter must be able to hold one byte.
    public init(maxLineBytes: Int = 4096) {
        self.maxLineBytes = max(1, maxLineBytes)
    }

    /// Bytes the splitter holds allocated for an unfinished line, for memory accounting.
    public var bufferCapacity: Int { pending.capacity }

    /// Splits `chunk`, calling `emit` for each line it completes.
    public mutating func feed(
        _ chunk: UnsafeRawBufferPointer, _ emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        try chunk.withMemoryRebound(to: UInt8.self) { bytes in
            try feed(bytes: bytes) { line, _ in try emit(line) }
        }
    }

    /// Splits `chunk` as `feed` does, telling `emit` also
    /// whether the line was cut at ``maxLineBytes`` (so a directive whose whole value matters,
    /// `RESULT=`, can refuse a cut one).
    public mutating func feedMarkingCuts(
        _ chunk: UnsafeRawBufferPointer, _ emit: (UnsafeBufferPointer<UInt8>, _ wasCut: Bool) throws -> Void
    ) rethrows {
        try chunk.withMemoryRebound(to: UInt8.self) { bytes in
            try feed(bytes: bytes, emit)
        }
    }

    /// Convenience for callers that hold the chunk in an array.
    public mutating func feed(
        _ chunk: [UInt8], _ emit: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        try chunk.withUnsafeBytes { try feed($0, emit) }
    }

    /// At end of input: emits the unfinished last line, if any, and resets for a new stream.
    public mutating func finish(_ emit: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        defer {
            pending.removeAll(keepingCapacity: true)
            discarding = false
        }
        // While discarding, the cut prefix of the last line has already been emitted.
        if !discarding, !pending.isEmpty {
            lines += 1
            try pending.withUnsafeBufferPointer { try emit($0) }
        }
    }

    private mutating func feed(
        bytes: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeBufferPointer<UInt8>, Bool) throws -> Void
    ) rethrows {
        var start = 0
        let end = bytes.count
        while start < end {
            let newline = Self.firstNewline(bytes, from: start)
            if discarding {
                guard let newline else { return }
                discarding = false
                start = newline + 1
                continue
            }
            let segmentEnd = newline ?? end
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<segmentEnd])
            // A `\r` ending the line is not counted: it is dropped from it (DESIGN §5), so a line of
            // `maxLineBytes` ending in `\r\n` is whole, not cut, even when its `\n` comes later.
            let endsInCR = segment.last.map { $0 == 0x0D } ?? (pending.last == 0x0D)
            let allowed = maxLineBytes + (endsInCR ? 1 : 0)

            if pending.count + segment.count <= allowed {
                if pending.isEmpty, newline != nil {
                    // The common case: the whole line is in this chunk, emit it in place.
                    lines += 1
                    try emit(segment, false)
                } else {
                    reservePending()
                    pending.append(contentsOf: segment)
                    if newline != nil {
                        lines += 1
                        try pending.withUnsafeBufferPointer { try emit($0, false) }
                        pending.removeAll(keepingCapacity: true)
                    }
                }
            } else {
                // Too long: emit what fits now rather than at the `\n`, which may never come.
                lines += 1
                truncatedLines += 1
                if pending.isEmpty {
                    let cut = Self.utf8Prefix(UnsafeBufferPointer(rebasing: segment[0..<maxLineBytes]))
                    try emit(cut, true)
                } else {
                    reservePending()
                    let take = max(0, maxLineBytes - pending.count)
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: segment[0..<take]))
                    try pending.withUnsafeBufferPointer { held in
                        try emit(Self.utf8Prefix(UnsafeBufferPointer(rebasing: held[0..<maxLineBytes])), true)
                    }
                    pending.removeAll(keepingCapacity: true)
                }
                if newline == nil { discarding = true }
            }
            start = segmentEnd + 1
        }
    }

    /// Reserves exactly one line's worth up front, so appends never grow the buffer
    /// geometrically past `maxLineBytes`.
    private mutating func reservePending() {
        if pending.capacity < maxLineBytes + 1 { pending.reserveCapacity(maxLineBytes + 1) }
    }

    /// Eight bytes at a time (a plugin may print millions of short lines): a word holds a `\n`
    /// where its bytes XOR `\n` hold a zero, and the lowest byte flagged by the zero-byte test
    /// is always a true one (a false flag needs a borrow from a true zero below it).
    static func firstNewline(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                    ^ 0x0A0A_0A0A_0A0A_0A0A
                let zeroes = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
                if zeroes != 0 { return index + zeroes.trailingZeroBitCount / 8 }
                index += 8
            }
        }
        while index < bytes.count {
            if bytes[index] == 0x0A { return index }
            index += 1
        }
        return nil
    }

    /// `bytes` without a multi-byte UTF-8 character that the cut left incomplete at its end, so
    /// a truncated line does not end in a spurious U+FFFD. Invalid input is left as it is.
    static func utf8Prefix(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lead = bytes.count - 1
        // Walk back over at most three continuation bytes (10xxxxxx) to the sequence's lead.
        while lead >= 0, lead >= bytes.count - 4, bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
        guard lead >= 0, lead >= bytes.count - 4 else { return bytes }
        let byte = bytes[lead]
        let length: Int
        switch byte {
        case 0xC0...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF7: length = 4
        default: return bytes  // ASCII, or not a lead byte: nothing incomplete to drop
        }
        if bytes.count - lead < length {
            return UnsafeBufferPointer(rebasing: bytes[0..<lead])
        }
        return bytes
    }
}
