// SPDX-License-Identifier: Apache-2.0
/// systemd's relative timestamps (`2 years 7 months ago`, `1 day 3h left`), for `agentctl
/// calendar`'s `From now:` lines, so that its output reads as `systemd-analyze calendar`'s does.
enum RelativeTime {
    static func text(milliseconds: Int64) -> String {
        let span = abs(milliseconds) / 1000
        guard span > 0 else { return "now" }
        return phrase(span) + (milliseconds < 0 ? " ago" : " left")
    }

    static let minute: Int64 = 60, hour: Int64 = 3600, day: Int64 = 86_400, week: Int64 = 604_800
    static let month: Int64 = 2_629_800, year: Int64 = 31_557_600

    static func phrase(_ s: Int64) -> String {
        func unit(_ count: Int64, _ name: String) -> String { "\(count) \(name)\(count == 1 ? "" : "s")" }
        func pair(_ first: String, _ second: String, _ count: Int64) -> String { count > 0 ? first + " " + second : first }
        switch s {
        case year...: return pair(unit(s / year, "year"), unit((s % year) / month, "month"), (s % year) / month)
        case month...: return pair(unit(s / month, "month"), unit((s % month) / day, "day"), (s % month) / day)
        case week...: return pair(unit(s / week, "week"), unit((s % week) / day, "day"), (s % week) / day)
        case (2 * day)...: return unit(s / day, "day")
        case (25 * hour)...: return "1 day \((s - day) / hour)h"
        case (6 * hour)...: return "\(s / hour)h"
        case hour...: return pair("\(s / hour)h", "\((s % hour) / minute)min", (s % hour) / minute)
        case (5 * minute)...: return "\(s / minute)min"
        case minute...: return pair("\(s / minute)min", "\(s % minute)s", s % minute)
        default: return "\(s)s"
        }
    }
}
