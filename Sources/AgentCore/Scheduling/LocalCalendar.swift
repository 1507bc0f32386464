// SPDX-License-Identifier: Apache-2.0
/// Local-calendar knowledge injected by the shell: the core never reads a time zone.
///
/// The shell reads the real zone rules (TZ, `/etc/localtime`) and hands the core two facts: the
/// UTC offset in effect now and, when the zone has one within about a year, the next transition
/// — the instant a daylight-saving switch happens and the offset after it. That is enough for the
/// core to place every local midnight until that transition and the first one after it exactly,
/// also on the day of a spring-forward or fall-back switch, without knowing any zone rules. The
/// shell sends a fresh calendar with `.calendarChanged` once the transition has passed, when the
/// zone itself changes (`/etc/localtime` replaced) and whenever the offset it reads disagrees
/// with this one.
public struct LocalCalendar: Sendable, Hashable {
    /// A change of the UTC offset: from `at` on, local time is UTC + `utcOffsetSeconds`.
    public struct Transition: Sendable, Hashable {
        public var at: SchedulerTime
        public var utcOffsetSeconds: Int

        public init(at: SchedulerTime, utcOffsetSeconds: Int) {
            self.at = at
            self.utcOffsetSeconds = utcOffsetSeconds
        }
    }

    /// Seconds east of UTC now (`+3600` for CET, `-18000` for EST).
    public var utcOffsetSeconds: Int
    /// The next change of the offset, if the zone has one the shell looked ahead to.
    public var nextTransition: Transition?

    public init(utcOffsetSeconds: Int, nextTransition: Transition? = nil) {
        self.utcOffsetSeconds = utcOffsetSeconds
        self.nextTransition = nextTransition
    }

    public static let utc = LocalCalendar(utcOffsetSeconds: 0)

    private static let day: Double = 86_400

    /// The offset in effect at `t`.
    public func utcOffset(at t: SchedulerTime) -> Int {
        guard let transition = nextTransition, t >= transition.at else { return utcOffsetSeconds }
        return transition.utcOffsetSeconds
    }

    /// Whether `t` is past what this calendar knows: the shell should look the zone up again.
    public func isOutdated(at t: SchedulerTime) -> Bool {
        guard let transition = nextTransition else { return false }
        return t >= transition.at
    }

    /// The local day number (days since 1970-01-01 in local time) containing `t`.
    func localDay(_ t: SchedulerTime) -> Int64 {
        let local = t.seconds + Double(utcOffset(at: t))
        guard local.isFinite else { return 0 }
        let days = (local / Self.day).rounded(.down)
        // ±1e15 days is far beyond any clock; clamp so the conversion cannot trap.
        return Int64(max(-1e15, min(1e15, days)))
    }

    /// The first local midnight strictly after `t`.
    ///
    /// The midnight's local wall time is known; its instant depends on the offset in effect then.
    /// Before the transition the old offset must put it before the transition, after it the new
    /// one after it. When both fit (a fall-back repeats the hour of midnight) the first counts;
    /// when neither does (a spring-forward at midnight skips it) the day starts at the transition.
    public func nextMidnight(after t: SchedulerTime) -> SchedulerTime {
        let wall = Double(localDay(t) + 1) * Self.day
        let before = SchedulerTime(seconds: wall - Double(utcOffsetSeconds))
        guard let transition = nextTransition, before >= transition.at else { return before }
        if utcOffsetSeconds == transition.utcOffsetSeconds { return before }
        let after = SchedulerTime(seconds: wall - Double(transition.utcOffsetSeconds))
        return after >= transition.at ? after : transition.at
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
