// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Instants in agentctl's `--json` (docs/json.md): RFC 3339 UTC text with milliseconds,
/// `2026-12-01T08:00:00.123Z`.
enum JSONInstant {
    static let pattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#

    /// Milliseconds since the epoch of a field's value, or nil when it is not an instant in the
    /// documented form.
    static func milliseconds(_ value: Any?) -> Int64? {
        guard let text = value as? String, text.range(of: pattern, options: .regularExpression) != nil else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}
