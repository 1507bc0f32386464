// SPDX-License-Identifier: Apache-2.0
/// A zone's rules as a TZif file (RFC 8536) states them: the offset after each transition up to
/// the table's end, then its footer's POSIX TZ rule for every later instant (Debian's files list
/// transitions to 2037; a "slim" file stops earlier). Decoded from the file's bytes by
/// ``init(tzif:)``; the shell reads the file.
public struct ZoneRules: UTCOffsetRule, Hashable {
    /// Transition instants, ascending, and the offset in force from each on.
    var transitions: [Int64]
    var offsets: [Int]
    /// In force before the first transition (the file's first time type).
    var initialOffset: Int
    /// After the last transition, when the file has a footer.
    var footer: PosixZoneRule?

    public func utcOffset(at unixSeconds: Int64) -> Int {
        guard let last = transitions.last else { return footer?.utcOffset(at: unixSeconds) ?? initialOffset }
        if unixSeconds >= last, let footer { return footer.utcOffset(at: unixSeconds) }
        var low = 0, high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= unixSeconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }

    /// The rules in a TZif file's bytes; nil when they are not one (too short, a count past the
    /// end, a type index out of range).
    public init?(tzif bytes: [UInt8]) {
        var reader = TZifReader(bytes: bytes)
        guard let header = reader.header() else { return nil }
        var body = header
        var wide = false
        if header.version >= 2 {
            // The version-1 block comes first, with 4-byte times; skip it for the 8-byte one.
            guard reader.skip(header.v1Length), let second = reader.header() else { return nil }
            body = second
            wide = true
        }
        var times: [Int64] = []
        for _ in 0..<body.timeCount {
            guard let time = wide ? reader.int64() : reader.int32().map(Int64.init) else { return nil }
            times.append(time)
        }
        var indices: [Int] = []
        for _ in 0..<body.timeCount {
            guard let index = reader.byte() else { return nil }
            indices.append(Int(index))
        }
        var typeOffsets: [Int] = []
        for _ in 0..<body.typeCount {
            guard let offset = reader.int32(), reader.skip(2) else { return nil }
            typeOffsets.append(Int(offset))
        }
        guard !typeOffsets.isEmpty, indices.allSatisfy({ $0 < typeOffsets.count }) else { return nil }
        transitions = times
        offsets = indices.map { typeOffsets[$0] }
        initialOffset = typeOffsets[0]
        footer = nil
        if wide {
            let rest = body.charCount + body.leapCount * 12 + body.stdCount + body.utCount
            guard reader.skip(rest) else { return nil }
            footer = reader.footer().flatMap(PosixZoneRule.init)
        }
    }
}

/// Big-endian reads through a TZif file.
struct TZifReader {
    struct Header {
        var version: Int
        var utCount, stdCount, leapCount, timeCount, typeCount, charCount: Int
        /// The length of the version-1 data block after this header.
        var v1Length: Int { timeCount * 5 + typeCount * 6 + charCount + leapCount * 8 + stdCount + utCount }
    }

    let bytes: [UInt8]
    var position = 0

    mutating func header() -> Header? {
        guard position + 44 <= bytes.count, Array(bytes[position..<position + 4]) == Array("TZif".utf8) else { return nil }
        let versionByte = bytes[position + 4]
        let version = versionByte == 0 ? 1 : Int(versionByte) - 0x30
        position += 20
        var counts: [Int] = []
        for _ in 0..<6 {
            guard let count = int32(), count >= 0, count < 1 << 20 else { return nil }
            counts.append(Int(count))
        }
        return Header(version: version, utCount: counts[0], stdCount: counts[1], leapCount: counts[2],
                      timeCount: counts[3], typeCount: counts[4], charCount: counts[5])
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count else { return false }
        position += count
        return true
    }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func int32() -> Int32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 { value = value << 8 | UInt32(bytes[position + index]) }
        position += 4
        return Int32(bitPattern: value)
    }

    mutating func int64() -> Int64? {
        guard position + 8 <= bytes.count else { return nil }
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(bytes[position + index]) }
        position += 8
        return Int64(bitPattern: value)
    }

    /// The text between the newlines after the version-2 block.
    mutating func footer() -> String? {
        guard byte() == UInt8(ascii: "\n") else { return nil }
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "\n") { position += 1 }
        guard position < bytes.count, position > start else { return nil }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }
}
