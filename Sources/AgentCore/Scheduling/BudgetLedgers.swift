// SPDX-License-Identifier: Apache-2.0
/// One ``DailyBudget`` ledger per budget account (manifest), all refilled at the same local
/// midnight under the same DST and zone rules.
///
/// An account that has launched nothing yet has no ledger of its own: it reads `template`, the
/// ledger every new one starts from. `template` is a fresh day's ledger — except on the day an
/// agent that kept one agent-wide ledger is upgraded: that old ledger is restored as `template`,
/// so every manifest starts that day with what the whole agent had spent (never more launches
/// than before the upgrade; the next midnight refills all of them).
///
/// With no manifest known (`shared`, as in scheduler tests), every job is in the one account
/// `BudgetAccounts.fallback`, whose ledger is `template` itself: one agent-wide ledger.
struct BudgetLedgers: Sendable, Hashable {
    var ledgers: [String: DailyBudget] = [:]
    var template = DailyBudget()
    /// No manifest is known: every account is the agent-wide `template`.
    var shared = true

    /// The ledger `account` counts in (its own, or the template while it has none).
    func ledger(_ account: String) -> DailyBudget { shared ? template : ledgers[account] ?? template }

    /// Spends one launch of `account`.
    mutating func spend(_ account: String) {
        if shared {
            template.spent += 1
            return
        }
        var ledger = ledger(account)
        ledger.spent += 1
        ledgers[account] = ledger
    }

    /// Launches left for `account` at `now` under `limit`: all of them once its refill is due.
    func remaining(_ account: String, limit: Int, now: SchedulerTime) -> Int {
        let ledger = ledger(account)
        if let refill = ledger.refillsAt, now >= refill { return max(0, limit) }
        return ledger.remaining(limit: limit)
    }

    /// ``DailyBudget/roll(now:calendar:)`` for every ledger. True when one changed.
    mutating func roll(now: SchedulerTime, calendar: LocalCalendar) -> Bool {
        var changed = template.roll(now: now, calendar: calendar)
        for name in Array(ledgers.keys) {
            if ledgers[name]?.roll(now: now, calendar: calendar) == true { changed = true }
        }
        return changed
    }

    /// ``DailyBudget/recalibrate(now:calendar:)`` for every ledger.
    mutating func recalibrate(now: SchedulerTime, calendar: LocalCalendar) {
        template.recalibrate(now: now, calendar: calendar)
        for name in Array(ledgers.keys) { ledgers[name]?.recalibrate(now: now, calendar: calendar) }
    }

    /// Takes restored ledgers: each kept if it is today's, otherwise a fresh day.
    mutating func restore(template day: String, spent: Int, ledgers saved: [String: BudgetLedgerEntry],
                          now: SchedulerTime, calendar: LocalCalendar) {
        template = DailyBudget()
        template.restore(day: day, spent: spent, now: now, calendar: calendar)
        ledgers = [:]
        for (name, entry) in saved {
            var ledger = DailyBudget()
            ledger.restore(day: entry.day, spent: entry.spent, now: now, calendar: calendar)
            ledgers[name] = ledger
        }
    }

    /// Drops the ledgers of accounts that are gone (a manifest removed: its ledger goes).
    /// Returns whether one was dropped.
    mutating func keepOnly(_ accounts: Set<String>) -> Bool {
        let gone = ledgers.keys.filter { !accounts.contains($0) }
        for name in gone { ledgers[name] = nil }
        return !gone.isEmpty
    }

    /// What is persisted of every account's own ledger.
    var entries: [String: BudgetLedgerEntry] {
        ledgers.mapValues { BudgetLedgerEntry(day: $0.day, spent: $0.spent) }
    }
}

/// One account's ledger as persisted: the local day (`YYYY-MM-DD`) and launches spent on it.
public struct BudgetLedgerEntry: Sendable, Hashable, Codable {
    public var day: String
    public var spent: Int

    public init(day: String, spent: Int) {
        self.day = day
        self.spent = spent
    }
}
