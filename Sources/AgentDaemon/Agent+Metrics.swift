// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore

extension Agent {
    /// The figures `agentctl metrics` and `MetricsFile=` show, read from the loop's state and one
    /// query each for last successes and the fresh-days figure.
    func metricsSnapshot() -> MetricsSnapshot {
        let registry = config.registry
        let jobs = registry.allJobs.compactMap { job -> JobDefinition? in
            if case .registered = job.state { return job.definition }
            return nil
        }.sorted { $0.identifier.rawValue < $1.identifier.rawValue }
        let registered = Set(jobs.map(\.identifier))
        let now = loop.clock.realtimeMilliseconds / 1000
        let running = Dictionary(grouping: runs?.liveRuns ?? [], by: \.job.kind).mapValues(\.count)
        var pending: [JobKind: Int] = [:]
        if let driver = scheduling {
            for work in driver.scheduler.waiting(now: driver.now) { pending[work.kind, default: 0] += 1 }
        }
        return MetricsSnapshot(
            version: AgentVersion.string, startedAt: startedAtWall, jobCount: registry.jobCount,
            configErrors: registry.diagnostics.filter { $0.severity == .error }.count,
            paused: scheduling?.scheduler.isPaused ?? false, stateWritable: state.problem == nil,
            running: Self.perKind(running), pending: Self.perKind(pending),
            budgets: budgetFigures(), runsEnded: runMetrics.runsEnded(where: registered.contains),
            durations: runMetrics.durations, jobs: jobFigures(jobs, now: now),
            conditions: conditions.map { ConditionFigures($0.inputs) })
    }

    private static func perKind(_ counts: [JobKind: Int]) -> [KindCount] {
        JobKind.allCases.map { KindCount(kind: $0.rawValue, count: counts[$0] ?? 0) }
    }

    /// The global `DailyBudget=` as manifest `all` (per-manifest budgets will add their own).
    private func budgetFigures() -> [BudgetFigures] {
        let daily = config.registry.settings.dailyBudget
        guard let driver = scheduling else { return [] }
        let left = driver.scheduler.budgetRemaining(now: driver.now)
        return [BudgetFigures(manifest: "all", daily: daily, spent: max(0, daily - left), left: left)]
    }

    private func jobFigures(_ jobs: [JobDefinition], now: Int64) -> [JobFigures] {
        var lastSuccess: [String: Int64] = [:]
        var successStarts: [String: [Int64]] = [:]
        if let store = runStore {
            do {
                lastSuccess = try store.lastSuccesses()
                successStarts = try store.successStarts(since: (now - FreshDays.lookbackSeconds) * 1000)
            } catch {
                storeFailed(error)
            }
        }
        return jobs.map { job in
            let id = job.identifier.rawValue
            let starts = (successStarts[id] ?? []).map { $0 / 1000 }
            return JobFigures(identifier: id, kind: job.kind.rawValue,
                              lastSuccess: lastSuccess[id].map { Double($0) / 1000 },
                              freshDayShare: FreshDays.share(successStarts: starts, now: now))
        }
    }
}
