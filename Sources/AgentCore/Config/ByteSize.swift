// SPDX-License-Identifier: Apache-2.0
/// A size in bytes as systemd writes them in `MemoryMax=`: a whole number of bytes, or a number
/// (a fraction allowed: `1.5G`) with one of the 1024-based suffixes `K`, `M`, `G`, `T` —
/// upper case, as in systemd (`m` is not a unit here).
/// `infinity` is the business of the keys, not of this parser.
public struct ByteSize: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var bytes: UInt64

    public init(bytes: UInt64) {
        self.bytes = bytes
    }

    /// What error messages quote as valid.
    public static let examples = "a number of bytes, or a number with K, M, G or T (1024-based) such as 512M or 2G"

    private static let suffixes: [(suffix: UInt8, shift: UInt64)] = [
        (UInt8(ascii: "K"), 10), (UInt8(ascii: "M"), 20), (UInt8(ascii: "G"), 30), (UInt8(ascii: "T"), 40),
    ]

    /// The size, or nil when `text` is not one (empty, negative, unknown suffix, overflow).
    public static func parse(_ text: String) -> ByteSize? {
        var bytes = Array(text.utf8)[...]
        var shift: UInt64 = 0
        if let last = bytes.last, let unit = suffixes.first(where: { $0.suffix == last }) {
            shift = unit.shift
            bytes = bytes.dropLast()
        }
        let parts = bytes.split(separator: TextBytes.dot, maxSplits: 1, omittingEmptySubsequences: false)
        guard let wholeDigits = parts.first, !wholeDigits.isEmpty,
              wholeDigits.allSatisfy(TextBytes.isDigit) else { return nil }
        let fractionDigits = parts.count == 2 ? parts[1] : []
        guard fractionDigits.allSatisfy(TextBytes.isDigit), parts.count == 1 || !fractionDigits.isEmpty,
              parts.count == 1 || shift > 0 else { return nil }
        guard let whole = UInt64(String(decoding: wholeDigits, as: UTF8.self)),
              whole <= UInt64.max >> shift else { return nil }
        var total = whole << shift
        // The fraction of the unit, rounded down to whole bytes (9 digits are plenty for 1 T).
        var numerator: UInt64 = 0
        var denominator: UInt64 = 1
        for digit in fractionDigits.prefix(9) {
            numerator = numerator * 10 + UInt64(digit - 0x30)
            denominator *= 10
        }
        let (sum, overflow) = total.addingReportingOverflow(((numerator << shift) / denominator))
        guard !overflow else { return nil }
        total = sum
        return ByteSize(bytes: total)
    }

    /// `64M`, `1536K`, `12345`: the largest suffix that divides the size exactly.
    public var description: String {
        for unit in Self.suffixes.reversed() where bytes != 0 && bytes & ((1 << unit.shift) - 1) == 0 {
            return "\(bytes >> unit.shift)\(Character(Unicode.Scalar(unit.suffix)))"
        }
        return String(bytes)
    }

    public static func < (a: ByteSize, b: ByteSize) -> Bool { a.bytes < b.bytes }
}
