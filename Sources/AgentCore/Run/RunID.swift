// SPDX-License-Identifier: Apache-2.0
/// The identity of one run: `r` and a number the caller takes from a persistent, increasing
/// counter, zero-padded to six digits (`r000042`; `r1234567` once past a million).
///
/// Comparable by number, so run ids sort in launch order. The text form is also the `Codable`
/// form, as it is what users type after `agentctl cancel`.
public struct RunID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let number: UInt64

    public init(_ number: UInt64) {
        self.number = number
    }

    /// The run id whose ``description`` is exactly `text`: `r000042` parses, `r42`, `R000042`
    /// and `r+00042` do not. One spelling per run keeps `agentctl cancel ID|RUN` unambiguous for
    /// every identifier that is not literally a run id.
    public init?(parsing text: String) {
        let bytes = text.utf8
        guard bytes.first == UInt8(ascii: "r"), bytes.count >= 1 + Self.minimumDigits else {
            return nil
        }
        var value: UInt64 = 0
        for byte in bytes.dropFirst() {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte &- 0x30))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        // Reject spellings with extra leading zeros (`r0000042`): only the canonical one parses.
        guard RunID(value).description == text else { return nil }
        self.number = value
    }

    public var description: String {
        let digits = String(number)
        let padding = max(0, Self.minimumDigits - digits.utf8.count)
        return "r" + String(repeating: "0", count: padding) + digits
    }

    public static func < (lhs: RunID, rhs: RunID) -> Bool { lhs.number < rhs.number }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = RunID(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not a run id (e.g. r000042)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static let minimumDigits = 6
}
