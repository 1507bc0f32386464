// SPDX-License-Identifier: Apache-2.0
/// `check`'s warning for a job that needs more launches a day than its manifest's budget
/// allows (DESIGN §3, issue 26 item 3): such a job does not fail, it waits
/// (`budget of local (48/48, refills 00:00)`) — worth saying before it happens.
public enum BudgetCheck {
    /// The most launches `definition` can need in one day: one per `Interval=`, or every slot
    /// of a day of its `Schedule=` (with both, the fewer), counting only what its `Window=`s
    /// let start; nil when it starts only on demand.
    public static func launchesPerDay(_ definition: JobDefinition) -> Int? {
        guard definition.kind != .continued else { return nil }
        let windows = definition.windows
        var result: Int?
        if let interval = definition.interval {
            let seconds = Int(max(1, interval.components.seconds))
            result = windows.isEmpty ? (86_400 + seconds - 1) / seconds
                // A start when each window opens, then one per interval while it is open.
                : windows.reduce(0) { $0 + ($1.duration + seconds - 1) / seconds }
        }
        if let schedule = definition.schedule {
            var slots = schedule.hours.count * schedule.minutes.count * schedule.microseconds.count
            if !windows.isEmpty {
                slots = 0
                for hour in schedule.hours {
                    for minute in schedule.minutes {
                        for micro in schedule.microseconds {
                            let second = hour * 3_600 + minute * 60 + micro / 1_000_000
                            if windows.contains(where: { $0.contains(secondOfDay: second) }) { slots += 1 }
                        }
                    }
                }
            }
            result = min(result ?? slots, slots)
        }
        return result
    }

    /// What the budget warning of a job depends on besides the job: the manifests' budgets
    /// and agentd.conf's. Made once per registry state, then asked per job.
    public struct Budgets: Sendable {
        let byName: [String: Manifest]
        let accounts: BudgetAccounts
        let dailyBudget: Int

        public init(_ registry: ConfigRegistry) {
            var byName: [String: Manifest] = [:]
            for (path, manifest) in registry.manifestsByPath {
                if let name = BudgetAccounts.manifestName(ofPath: path) { byName[name] = manifest }
            }
            self.byName = byName
            accounts = BudgetAccounts(byName)
            dailyBudget = registry.settings.dailyBudget
        }
    }

    /// One warning per job of `registry` whose launches a day exceed its manifest's budget.
    /// `quotesPrivateFiles` false (the agent's `status`): a file not every reader may read is
    /// named without its settings.
    public static func warnings(_ registry: ConfigRegistry, quotesPrivateFiles: Bool = true) -> [ConfigDiagnostic] {
        let budgets = Budgets(registry)
        var warnings: [(id: Identifier, diagnostic: ConfigDiagnostic)] = []
        registry.forEachRegistered { job in
            if let warning = warning(for: job, budgets, quotesPrivateFiles: quotesPrivateFiles) {
                warnings.append((job.definition.identifier, warning))
            }
        }
        return warnings.sorted { $0.id < $1.id }.map(\.diagnostic)
    }

    /// The warning of one registered job, or nil when its budget covers it.
    public static func warning(for job: RegisteredJob, _ budgets: Budgets, quotesPrivateFiles: Bool) -> ConfigDiagnostic? {
        guard let needed = launchesPerDay(job.definition) else { return nil }
        let account = budgets.accounts.account(for: job.definition.identifier, kind: job.definition.kind)
        let budget = (budgets.byName[account]?.dailyBudget) ?? budgets.dailyBudget
        guard needed > budget else { return nil }
        let setting = job.definition.schedule.map { "Schedule=\($0.text)" }
            ?? "Interval=\(job.definition.interval.map(TimeSpan.format) ?? "")"
        let owner = budgets.byName[account]?.dailyBudget == nil ? "agentd.conf's DailyBudget= (for manifest \(account))"
            : "manifest \(account)"
        let message = quotesPrivateFiles || job.isPublic
            ? "\(setting) needs \(needed) launches a day; \(owner) allows \(budget): the rest wait "
                + "for the next day's budget; raise DailyBudget= (or set it to infinity) or run it less often"
            : "needs more launches a day than its budget allows; the rest wait for the next day's budget "
                + DiagnosticRedaction.note
        return ConfigDiagnostic(path: job.sourcePath, severity: .warning, message: message)
    }
}
