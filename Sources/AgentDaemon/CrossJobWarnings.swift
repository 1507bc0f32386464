// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// `status`'s warnings that look across jobs (a job that needs more launches a day than its
/// budget, a chain line that names no job, a cycle through `OnFailure=`), kept up to date from
/// each batch of config changes rather than worked out again over every job: while 10,000 job
/// files arrive, every `status` comes after a change, and the walk over all of them took 10–30 ms
/// of the loop each time (bench/drop.py: `status` p99 46–95 ms, the files loaded 4× slower).
///
/// A job's budget warning depends on the job and on the budgets (manifests, agentd.conf): only
/// the jobs a batch names are looked at again, all of them when a manifest or agentd.conf changed.
/// Chain warnings depend on which jobs exist: they are worked out again over the jobs that have
/// a chain line, which are few.
struct CrossJobWarnings {
    private var budget: [Identifier: ConfigDiagnostic] = [:]
    private var chained: Set<Identifier> = []
    private var assembled: [ConfigDiagnostic]?
    private var built = false

    /// The same warnings worked out whole, over every job: what these kept ones must equal.
    static func all(_ registry: ConfigRegistry) -> [ConfigDiagnostic] {
        BudgetCheck.warnings(registry, quotesPrivateFiles: false)
            + ChainTargetCheck.warnings(registry, quotesPrivateFiles: false)
    }

    /// Takes in a batch of changes of `registry` (already applied to it).
    mutating func apply(_ changes: [RegistryChange], registry: ConfigRegistry) {
        guard !changes.isEmpty else { return }
        assembled = nil
        guard built, !changes.contains(where: { $0.settingsChanged || $0.permissionsChanged }) else {
            rebuild(registry)
            return
        }
        let budgets = BudgetCheck.Budgets(registry)
        var seen: Set<Identifier> = []
        for change in changes {
            for id in change.added + change.updated + change.removed where seen.insert(id).inserted {
                refresh(id, registry, budgets)
            }
        }
    }

    /// The warnings, by identifier within each kind, as `check` gives them.
    mutating func warnings(_ registry: ConfigRegistry) -> [ConfigDiagnostic] {
        if !built { rebuild(registry) }
        if let assembled { return assembled }
        let jobs = chained.sorted().compactMap { id -> RegisteredJob? in
            guard let job = registry.job(id), job.state == .registered else { return nil }
            return job
        }
        let warnings = budget.sorted { $0.key < $1.key }.map(\.value)
            + ChainTargetCheck.warnings(chained: jobs, registry, quotesPrivateFiles: false)
        assembled = warnings
        return warnings
    }

    private mutating func rebuild(_ registry: ConfigRegistry) {
        budget = [:]
        chained = []
        assembled = nil
        built = true
        let budgets = BudgetCheck.Budgets(registry)
        registry.forEachRegistered { job in take(job, budgets) }
    }

    private mutating func refresh(_ id: Identifier, _ registry: ConfigRegistry, _ budgets: BudgetCheck.Budgets) {
        budget[id] = nil
        chained.remove(id)
        guard let job = registry.job(id), job.state == .registered else { return }
        take(job, budgets)
    }

    private mutating func take(_ job: RegisteredJob, _ budgets: BudgetCheck.Budgets) {
        let id = job.definition.identifier
        budget[id] = BudgetCheck.warning(for: job, budgets, quotesPrivateFiles: false)
        if ChainTargetCheck.chains(job.definition) { chained.insert(id) }
    }
}
