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
            configErrorCount: registry.diagnostics.filter { $0.severity == .error }.count,
            paused: scheduling?.scheduler.isPaused ?? false, stateWritable: state.problem == nil,
            running: Self.perKind(running), pending: Self.perKind(pending),
            budgets: budgetFigures(), runsEnded: runMetrics.runsEnded(where: registered.contains),
            durations: runMetrics.durations, jobs: jobFigures(jobs, now: now),
            conditions: conditions.map { ConditionFigures($0.inputs) })
    }

    private static func perKind(_ counts: [JobKind: Int]) -> [KindCount] {
        JobKind.allCases.map { KindCount(kind: $0.rawValue, runCount: counts[$0] ?? 0) }
    }

    /// Each manifest's budget, labelled by the manifest's name.
    private func budgetFigures() -> [BudgetFigures] {
        guard let driver = scheduling else { return [] }
        return driver.scheduler.budgetStandings(now: driver.now).map(BudgetFigures.init)
    }

    /// A run ended: the counters, and the success history when it succeeded.
    func metricsRunEnded(_ run: ActiveRun, stop: StopReason, endedAtMs: Int64) {
        let seconds = Double(endedAtMs - run.startedAtMilliseconds) / 1000
        runMetrics.runEnded(job: run.job.identifier, kind: run.job.kind, stop: stop, seconds: seconds)
        if stop == .success {
            successHistory.recordSuccess(run.state.identifier.rawValue, startedAtMs: run.startedAtMilliseconds,
                                         endedAtMs: endedAtMs)
        }
    }

    private func jobFigures(_ jobs: [JobDefinition], now: Int64) -> [JobFigures] {
        if !successHistory.isSeeded, let store = runStore {
            // Once, when the state database is first readable; afterwards run ends keep it current.
            do {
                successHistory.seed(lastSuccesses: try store.lastSuccesses(),
                                    successStarts: try store.successStarts(since: (now - FreshDays.lookbackSeconds) * 1000))
            } catch {
                storeFailed(error)
            }
        }
        return jobs.map { job in
            let id = job.identifier.rawValue
            return JobFigures(identifier: id, kind: job.kind.rawValue, lastSuccessAt: successHistory.lastSuccess(of: id),
                              freshDayShare: successHistory.runRate(of: id, now: now))
        }
    }
}
