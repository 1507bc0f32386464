// SPDX-License-Identifier: Apache-2.0
/// Per-manifest daily budgets (DESIGN §6): whose budget a job spends, what
/// holds it, and the jobs that wait for their manifest's refill.
extension Scheduler {
    /// The manifests changed: new accounts and limits apply now; a gone manifest's ledger is
    /// dropped. Only a limit changed (the usual edit): the next dispatch releases what a larger
    /// budget allows and holds what a smaller one stops, O(jobs released). Patterns changed (a
    /// manifest added or removed): budget-held jobs go back to the ready heap, where the next
    /// dispatch sorts them by their (maybe new) account, O(held jobs · log n).
    mutating func budgetsChanged(_ new: BudgetAccounts, now: SchedulerTime) {
        guard new != accounts else { return }
        let old = accounts
        accounts = new
        budgets.shared = new.isEmpty
        if budgets.keepOnly(Set(new.names)) { dirty = true }
        for name in new.names where old.limits[name] != nil
            && old.limit(of: name, default: settings.dailyBudget) != budgetLimit(name) {
            log("budget of \(name): DailyBudget=\(budgetLimit(name)) from now on "
                + "(\(budgets.ledger(name).spent) used today)")
        }
        guard !new.assignsLikeThis(old) else { return }
        ready.setAll(budgetHeld.takeAll())
    }

    /// The account (manifest name) `job` spends.
    func budgetAccount(_ job: JobSchedule) -> String {
        accounts.account(for: job.identifier, kind: job.definition.kind)
    }

    /// The launches a day `account` allows. None for a job no manifest permits while manifests
    /// are known: between a manifest's removal and its job's (the shell sends both in one
    /// iteration) that job must not launch on some other budget.
    func budgetLimit(_ account: String) -> Int {
        if !accounts.isEmpty, accounts.limits[account] == nil { return 0 }
        return accounts.limit(of: account, default: settings.dailyBudget)
    }

    /// `account`'s day at `now`: used, limit and the next refill.
    func standing(_ account: String, now: SchedulerTime) -> BudgetStanding {
        let ledger = budgets.ledger(account)
        let limit = budgetLimit(account)
        guard let refill = ledger.refillsAt, now < refill else {
            return BudgetStanding(account: account, used: 0, limit: limit,
                                  refillsAt: calendar.nextMidnight(after: now))
        }
        return BudgetStanding(account: account, used: ledger.spent, limit: limit, refillsAt: refill)
    }

    /// `.budget` when `job`'s manifest has no launch left today.
    func budgetBlocker(_ job: JobSchedule, now: SchedulerTime) -> WaitReason? {
        let account = budgetAccount(job)
        guard budgets.remaining(account, limit: budgetLimit(account), now: now) == 0 else { return nil }
        return .budget(standing(account, now: now))
    }

    /// Whether `account` can launch one more today.
    func hasBudget(_ account: String, now: SchedulerTime) -> Bool {
        budgets.remaining(account, limit: budgetLimit(account), now: now) > 0
    }

    /// Every manifest's budget today, by name (`status`, metrics); the one shared account when
    /// no manifest is known.
    public func budgetStandings(now: SchedulerTime) -> [BudgetStanding] {
        let names = accounts.isEmpty ? [BudgetAccounts.fallback] : accounts.names
        return names.map { standing($0, now: now) }
    }

    /// Jobs held on an account that has launches again (midnight, a larger `DailyBudget=`) go
    /// back to the ready heap. O(accounts waited on + jobs released).
    mutating func releaseRefilledBudgets(now: SchedulerTime) {
        for account in Array(budgetHeld.accounts) where hasBudget(account, now: now) {
            for (id, key) in budgetHeld.take(account) {
                lastEventWork += 1
                ready.set(id, key)
            }
        }
    }
}
