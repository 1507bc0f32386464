// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Time spans: parse, format, parse gives the same span; never negative.
enum TimeSpanChecks {
    /// Spans up to this are formatted exactly (format clamps beyond ~292 000 years).
    static let exactLimit = Duration.seconds(Int64.max / 1_000_000 - 1)

    static func check(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let span = TimeSpan.parse(text) else { return nil }
        if span < .zero { return "negative span \(span) from \(String(reflecting: text))" }
        guard span <= exactLimit else { return nil }
        let formatted = TimeSpan.format(span)
        guard let again = TimeSpan.parse(formatted) else {
            return "\(String(reflecting: text)) formatted as \(formatted), which does not parse"
        }
        return again == span ? nil : "\(String(reflecting: text)) is \(span), formatted \(formatted) is \(again)"
    }
}
