// SPDX-License-Identifier: Apache-2.0
/// Little helpers to write netlink fixtures byte by byte in the tests, so the byte layout is spelled
/// out in the test itself rather than produced by the encoders under test. Netlink uses the host's
/// byte order; agentd's targets (x86_64, arm64) are little-endian.
enum Bytes {
    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xff), UInt8((value >> 8) & 0xff), UInt8((value >> 16) & 0xff), UInt8(value >> 24)]
    }
    static func i32(_ value: Int32) -> [UInt8] { u32(UInt32(bitPattern: value)) }

    /// struct nlmsghdr: nlmsg_len u32, nlmsg_type u16, nlmsg_flags u16, nlmsg_seq u32, nlmsg_pid u32.
    static func header(length: Int, type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, port: UInt32 = 0) -> [UInt8] {
        u32(UInt32(length)) + u16(type) + u16(flags) + u32(sequence) + u32(port)
    }

    /// struct nlattr: nla_len u16 (header + payload, without padding), nla_type u16, payload, then
    /// zero padding to a multiple of 4.
    static func attribute(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        var bytes = u16(UInt16(4 + payload.count)) + u16(type) + payload
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    /// A message: header with the total length, then `body`.
    static func message(type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, port: UInt32 = 0, _ body: [UInt8]) -> [UInt8] {
        header(length: 16 + body.count, type: type, flags: flags, sequence: sequence, port: port) + body
    }

    static func cString(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }
}

/// A deterministic pseudo-random generator (SplitMix64) for the fuzz-style tests: the same inputs
/// on every run, so a failure is reproducible.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Array where Element == UInt8 {
    /// A mutated copy: truncated, bytes flipped, bytes inserted or a random length field.
    func mutated(using random: inout SplitMix64) -> [UInt8] {
        var copy = self
        switch random.next() % 4 {
        case 0:
            copy = Array(copy.prefix(Int(random.next() % UInt64(copy.count + 1))))
        case 1:
            for _ in 0..<(1 + random.next() % 4) where !copy.isEmpty {
                copy[Int(random.next() % UInt64(copy.count))] = UInt8(truncatingIfNeeded: random.next())
            }
        case 2:
            copy.insert(UInt8(truncatingIfNeeded: random.next()), at: Int(random.next() % UInt64(copy.count + 1)))
        default:
            if copy.count >= 2 {
                let at = Int(random.next() % UInt64(copy.count - 1))
                copy[at] = UInt8(truncatingIfNeeded: random.next())
                copy[at + 1] = UInt8(truncatingIfNeeded: random.next() % 3)
            }
        }
        return copy
    }

    static func random(count: Int, using random: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
}
