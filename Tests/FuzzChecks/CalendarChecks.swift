// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// `Schedule=` calendar events: parsing is deterministic; the next match is strictly later, and
/// searching again from just before it finds it again (no slot skipped, none invented).
enum CalendarChecks {
    static let start = SchedulerTime(seconds: 1_796_040_000)  // 2026-11-30 08:00 UTC

    static func check(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard case .success(let event) = CalendarEventParser.parse(text) else { return nil }
        guard case .success(let again) = CalendarEventParser.parse(event.text), again == event else {
            return "\(String(reflecting: text)) parses differently the second time"
        }
        let rule = FixedUTCOffset(seconds: Int(bytes.first ?? 0) % 27 * 3600 - 13 * 3600)
        guard let next = event.nextMatch(after: start, rule: rule) else { return nil }
        if next <= start { return "\(String(reflecting: text)): next match \(next) not after \(start)" }
        let before = SchedulerTime(seconds: next.seconds - 1)
        guard let same = event.nextMatch(after: before, rule: rule), same == next else {
            return "\(String(reflecting: text)): from \(before) the next match is not \(next) again"
        }
        return nil
    }
}
