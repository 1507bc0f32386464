// SPDX-License-Identifier: Apache-2.0
/// Local-calendar knowledge injected by the shell: the core never reads a timezone.
///
/// A fixed UTC offset is enough for the core; when the real offset changes (daylight saving, a
/// new timezone) the daemon sends `.calendarChanged` with the new one.
public struct LocalCalendar: Sendable, Hashable {
    /// Seconds east of UTC (`+3600` for CET, `-18000` for EST).
    public var utcOffsetSeconds: Int

    public init(utcOffsetSeconds: Int) {
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    public static let utc = LocalCalendar(utcOffsetSeconds: 0)

    private static let day: Double = 86_400

    /// The local day number (days since 1970-01-01 in local time) containing `t`.
    func localDay(_ t: SchedulerTime) -> Int64 {
        let local = t.seconds + Double(utcOffsetSeconds)
        guard local.isFinite else { return 0 }
        let days = (local / Self.day).rounded(.down)
        // ±1e15 days is far beyond any clock; clamp so the conversion cannot trap.
        return Int64(max(-1e15, min(1e15, days)))
    }

    /// The first local midnight strictly after `t`.
    public func nextMidnight(after t: SchedulerTime) -> SchedulerTime {
        let next = Double(localDay(t) + 1) * Self.day - Double(utcOffsetSeconds)
        return SchedulerTime(seconds: next)
    }

    /// The local date of `t` as `YYYY-MM-DD`, e.g. `"2026-11-30"` (the budget ledger's key).
    public func dayKey(_ t: SchedulerTime) -> String {
        let (year, month, day) = Self.civil(fromDays: localDay(t))
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value < 0 ? -value : value)
            let padding = String(repeating: "0", count: max(0, width - digits.utf8.count))
            return (value < 0 ? "-" : "") + padding + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day number.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
