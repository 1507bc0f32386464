// SPDX-License-Identifier: Apache-2.0
/// The slowest a transfer may go before it is given up: below `bytesPerSecond` for `seconds` in a
/// row ends the run with exit 13 (network; the next run resumes). Without a real floor a server
/// trickling a byte now and then would hold the run, and its job's slot, for ever.
public struct MinimumSpeed: Equatable, Sendable {
    /// 1 kB/s over a minute: far below any working link (a 2G modem does 5 kB/s), so only a stalled
    /// or trickling server trips it, and a minute rides out a short outage or a Wi-Fi hand-over.
    public static let standard = MinimumSpeed(bytesPerSecond: 1000, seconds: 60)
    /// A day: longer would be no floor at all.
    public static let longestSeconds = 86_400

    public let bytesPerSecond: Int
    public let seconds: Int

    public init(bytesPerSecond: Int, seconds: Int) {
        self.bytesPerSecond = bytesPerSecond
        self.seconds = seconds
    }

    /// `--min-speed`: bytes a second, optionally with a decimal `k` or `M` (`10k` = 10000, as the
    /// SUBTITLE= line counts). At least 1: libcurl takes 0 as "no check", and then a connection that
    /// sends nothing would be waited on for ever.
    public static func rate(_ text: String) -> Int? {
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last, let multiplier = ["k": 1000, "K": 1000, "M": 1_000_000][last] {
            unit = multiplier
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }), digits.count <= 9,
              let value = Int(digits), value >= 1 else { return nil }
        return value * unit
    }

    /// `--min-speed-time`: whole seconds, 1 to ``longestSeconds``.
    public static func seconds(_ text: String) -> Int? {
        guard text.utf8.allSatisfy({ (48...57).contains($0) }), text.count <= 6, let value = Int(text),
              (1...longestSeconds).contains(value) else { return nil }
        return value
    }
}
