// SPDX-License-Identifier: Apache-2.0
/// A share of something the machine has — `MemoryMax=50%` of its physical memory, `TasksMax=10%`
/// of its task limit — in ten-thousandths, as systemd's `parse_permyriad` reads it: `12.5%`
/// (at most two decimals), `5‰` (at most one) or `25‱` (whole), never above the whole.
public struct MachineShare: Hashable, Sendable, CustomStringConvertible {
    /// Ten-thousandths of the whole, 0...10_000.
    public var permyriad: UInt64

    public static let whole: UInt64 = 10_000

    public init?(permyriad: UInt64) {
        guard permyriad <= Self.whole else { return nil }
        self.permyriad = permyriad
    }

    /// Whether `text` is meant as a share (it ends with one of the signs), valid or not.
    public static func isShare(_ text: String) -> Bool {
        signs.contains { text.hasSuffix($0.sign) }
    }

    /// The share `text` names, or nil when it is not one or exceeds 100%.
    public static func parse(_ text: String) -> MachineShare? {
        guard let sign = signs.first(where: { text.hasSuffix($0.sign) }) else { return nil }
        let number = Array(text.utf8.dropLast(sign.sign.utf8.count))
        let parts = number.split(separator: TextBytes.dot, maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 6, whole.allSatisfy(TextBytes.isDigit)
        else { return nil }
        let fraction = parts.count == 2 ? Array(parts[1]) : []
        guard parts.count == 1 || (!fraction.isEmpty && fraction.count <= sign.decimals),
              fraction.allSatisfy(TextBytes.isDigit) else { return nil }
        var value: UInt64 = 0
        for digit in whole { value = value * 10 + UInt64(digit - 0x30) }
        for index in 0..<sign.decimals {
            value = value * 10 + (index < fraction.count ? UInt64(fraction[index] - 0x30) : 0)
        }
        return MachineShare(permyriad: value)
    }

    /// This share of `total`, rounded down (never more than `total`, so it cannot overflow).
    public func of(_ total: UInt64) -> UInt64 {
        Self.whole.dividingFullWidth(total.multipliedFullWidth(by: permyriad)).quotient
    }

    /// `50%`, `12.5%`, `0.25%`.
    public var description: String {
        let whole = permyriad / 100, hundredths = permyriad % 100
        if hundredths == 0 { return "\(whole)%" }
        if hundredths % 10 == 0 { return "\(whole).\(hundredths / 10)%" }
        return "\(whole).\(hundredths < 10 ? "0" : "")\(hundredths)%"
    }

    /// What error messages quote as valid.
    public static let examples = "a percentage such as 50% or 12.5%"

    /// Each sign and how many decimals it allows: its last decimal is always ten-thousandths.
    private static let signs: [(sign: String, decimals: Int)] = [("%", 2), ("‰", 1), ("‱", 0)]
}
