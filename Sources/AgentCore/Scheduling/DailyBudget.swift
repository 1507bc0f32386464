// SPDX-License-Identifier: Apache-2.0
/// `DailyBudget=`: discretionary launches (refresh, processing — every reason) per local day,
/// refilled at local midnight. Continued runs and runs the shell starts itself do not count.
struct DailyBudget: Sendable, Hashable {
    /// The local day `spent` counts (`YYYY-MM-DD`); empty before the first event.
    var day: String = ""
    var spent: Int = 0
    /// The next local midnight: when `spent` goes back to 0. nil before the first event.
    var refillsAt: SchedulerTime?

    /// Starts a new day when `now` has reached the refill time (or the day is unknown).
    /// Returns true when the ledger changed.
    mutating func roll(now: SchedulerTime, calendar: LocalCalendar) -> Bool {
        if let refillsAt, now < refillsAt { return false }
        let today = calendar.dayKey(now)
        refillsAt = calendar.nextMidnight(after: now)
        guard today != day else { return false }
        // A zone change westward across midnight (or a clock stepped back over it) makes it
        // the day before again: the ledger of the day that had begun stays, or that evening
        // would get a second budget. Only one day back: a larger step starts afresh.
        if calendar.dayKey(now + .seconds(86_400)) == day { return false }
        day = today
        spent = 0
        return true
    }

    /// Takes a restored ledger: kept if it is today's, otherwise a fresh day.
    mutating func restore(day: String, spent: Int, now: SchedulerTime, calendar: LocalCalendar) {
        self.day = day
        self.spent = max(0, spent)
        refillsAt = nil
        _ = roll(now: now, calendar: calendar)
    }

    /// The day and refill time to recompute after the calendar changed or the clock was stepped.
    /// Only a midnight crossed going forward refills: a step back (or a zone to the west) into
    /// the previous date keeps what was spent, and the budget refills at the next local midnight
    /// the clock reaches — one day's budget is never handed out twice.
    mutating func recalibrate(now: SchedulerTime, calendar: LocalCalendar) {
        let today = calendar.dayKey(now)
        refillsAt = calendar.nextMidnight(after: now)
        guard today != day else { return }
        if day.isEmpty || today > day { spent = 0 }
        day = today
    }

    func remaining(limit: Int) -> Int { max(0, limit - spent) }
}
