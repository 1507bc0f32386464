// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore
import AgentSystem

/// The figures `agentctl metrics` and `MetricsFile=` show: counters kept from run ends, the rest
/// read from the loop's components when asked, and one query each for last successes and the
/// fresh-days figure (once, when the state database is first readable).
final class MetricsCollector {
    private let catalogue: JobCatalogue
    private let loop: any EventLooping
    private let state: StateDirectory
    private let stateWriter: StateWriter
    private let scheduling: SchedulerDriver
    private let runs: RunSupervisor
    private let conditions: ConditionMonitor
    private let startedAtWall: Int64
    /// Runs ended and run durations since the start.
    private var runMetrics = RunMetrics()
    /// Last successes and recent success starts, for the per-job figures.
    private var successHistory = SuccessHistory()

    init(catalogue: JobCatalogue, loop: any EventLooping, state: StateDirectory, stateWriter: StateWriter,
         scheduling: SchedulerDriver, runs: RunSupervisor, conditions: ConditionMonitor, startedAtWall: Int64) {
        self.catalogue = catalogue
        self.loop = loop
        self.state = state
        self.stateWriter = stateWriter
        self.scheduling = scheduling
        self.runs = runs
        self.conditions = conditions
        self.startedAtWall = startedAtWall
    }

    func snapshot() -> MetricsSnapshot {
        let registry = catalogue.registry
        let jobs = catalogue.registeredDefinitions.sorted { $0.identifier.rawValue < $1.identifier.rawValue }
        let registered = Set(jobs.map(\.identifier))
        let now = loop.clock.realtimeMilliseconds / 1000
        let running = runs.liveCountByKind
        var pending: [JobKind: Int] = [:]
        for work in scheduling.scheduler.waiting(now: scheduling.now) { pending[work.kind, default: 0] += 1 }
        return MetricsSnapshot(
            version: AgentVersion.string, startedAt: startedAtWall, jobCount: registry.jobCount,
            configErrorCount: catalogue.errorCount,
            paused: scheduling.scheduler.isPaused, stateWritable: state.writeProblem == nil,
            running: Self.perKind(running), pending: Self.perKind(pending),
            budgets: budgetFigures(), runsEnded: runMetrics.runsEnded(where: registered.contains),
            durations: runMetrics.durations, jobs: jobFigures(jobs, now: now),
            conditions: ConditionFigures(conditions.inputs))
    }

    private static func perKind(_ counts: [JobKind: Int]) -> [KindCount] {
        JobKind.allCases.map { KindCount(kind: $0, runCount: counts[$0] ?? 0) }
    }

    /// Each manifest's budget, labelled by the manifest's name.
    private func budgetFigures() -> [BudgetFigures] {
        scheduling.scheduler.budgetStandings(now: scheduling.now).map(BudgetFigures.init)
    }

    /// A run ended: the counters, and the success history when it succeeded.
    func runEnded(_ end: RunEnd) {
        let seconds = Double(end.endedAtMilliseconds - end.startedAtMilliseconds) / 1000
        runMetrics.runEnded(job: end.job, kind: end.kind, stop: end.stop, seconds: seconds)
        successHistory.recordRun(end.identifier.rawValue, startedAtMs: end.startedAtMilliseconds)
        if end.stop == .success {
            successHistory.recordSuccess(end.identifier.rawValue, startedAtMs: end.startedAtMilliseconds,
                                         endedAtMs: end.endedAtMilliseconds)
        }
    }

    private func jobFigures(_ jobs: [JobDefinition], now: Int64) -> [JobFigures] {
        if !successHistory.isSeeded, state.database != nil {
            // Once, when the state database is first readable; afterwards run ends keep it current.
            do {
                let since = (now - FreshDays.lookbackSeconds) * 1000
                if let (last, starts, first) = try state.reading({ store in
                    (try store.lastSuccesses(), try store.successStarts(since: since), try store.firstRunStarts())
                }) {
                    successHistory.seed(lastSuccesses: last, successStarts: starts, firstRuns: first)
                }
            } catch {
                stateWriter.report(error)
            }
        }
        return jobs.map { job in
            let id = job.identifier.rawValue
            return JobFigures(identifier: id, kind: job.kind, lastSuccessAt: successHistory.lastSuccess(of: id),
                              freshDayShare: successHistory.runRate(of: id, now: now))
        }
    }
}
