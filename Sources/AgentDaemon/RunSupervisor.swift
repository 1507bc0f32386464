// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore
import AgentSystem

/// Follows each run from its launch to its one result: carries out what each run's
/// ``RunLifecycle`` decides (MaxRuntime, ProgressTimeout, pause, teardown, the result) with one
/// timer per run at its next deadline. Starting processes is the launcher's (``RunLaunching``),
/// writing records the recorder's (``RunRecorder``); neither the clock nor the environment is
/// read here: the loop's clock, and `readClock` for the fresh reads a launch burst needs.
final class RunSupervisor {
    let loop: any EventLooping
    let log: Logger
    private let state: StateDirectory
    private let stateWriter: StateWriter
    private let launcher: any RunLaunching
    let recorder: RunRecorder
    /// The clocks read now (not the iteration's reading): each launch of a burst starts when
    /// it starts, and MaxRuntime counts from there.
    let readClock: () -> ClockReading
    /// Benchmarks read how late each teardown step went out.
    let logsLateness: Bool
    private(set) var live: [RunID: ActiveRun] = [:]
    /// The run that ended last and how: an answer to a launch says a run skipped at once
    /// (a false `Condition…=`) or that failed to spawn ended, rather than that it started.
    private(set) var lastEnded: (run: RunID, stopReason: StopReason)?
    /// Whether this agent has launched a run: then recovery leaves processes of unrecorded run
    /// ids alone (they may be this agent's, numbered before the state could be read).
    private var launchedAny = false
    var logLimiter = LogRateLimiter<RunID>(limit: 200, interval: .seconds(1))
    /// Called when the last live run has ended (used for a clean shutdown).
    var onIdle: (() -> Void)?
    /// Every run start and end, by job identifier, for the scheduler.
    var onRunStarted: ((Identifier, RunID, RunReason) -> Void)?
    var onRunEnded: ((RunEnd) -> Void)?
    /// A run's progress moved by at least a whole percent (least-progress-first decisions).
    var onRunProgress: ((RunID, Double) -> Void)?
    /// Every `PROGRESS=`, `TITLE=`, `SUBTITLE=` and `STATUS=` line (the event stream).
    var onRunDirective: ((RunID, PluginDirective) -> Void)?
    /// Whether anyone follows `onRunDirective` now; asked once per read of a plugin's output.
    var directivesFollowed: (() -> Bool)?
    /// Each output line of a live run, as it is read (`run-output` events, `agentctl logs -f`).
    var onRunOutput: ((RunID, String) -> Void)?
    /// What `Condition…=` keys are checked against right before a spawn (the machine, in the
    /// agent; a table in daemon scripts); nil: no job's conditions can be checked, none runs.
    var conditionFacts: (() -> any ConditionFacts)?
    /// Output tails of ended runs an `OnFailure=` job will be told about.
    var failureOutputs = FailureOutputs()
    /// The runs the start-up recovery recorded `agent-restart` (for their notifications).
    private(set) var recovered: [RecoveredRun] = []

    init(loop: any EventLooping, log: Logger, state: StateDirectory, stateWriter: StateWriter,
         launcher: any RunLaunching, readClock: @escaping () -> ClockReading, logsLateness: Bool) {
        self.loop = loop
        self.log = log
        self.state = state
        self.stateWriter = stateWriter
        self.launcher = launcher
        self.readClock = readClock
        self.logsLateness = logsLateness
        recorder = RunRecorder(loop: loop, state: state, stateWriter: stateWriter)
        recorder.live = { [unowned self] id in self.live[id] }
    }

    /// Live runs in run-id order (sorts: for answers, not for counting).
    var liveRuns: [ActiveRun] { live.values.sorted { $0.state.id < $1.state.id } }
    var liveCount: Int { live.count }
    /// Live runs per kind, without sorting them.
    var liveCountByKind: [JobKind: Int] { live.values.reduce(into: [:]) { $0[$1.job.kind, default: 0] += 1 } }
    var isIdle: Bool { live.isEmpty }
    /// For `agentctl status`: which per-run limits hold here.
    var limitEnforcement: [LimitEnforcement] { launcher.limitEnforcement }

    // MARK: start-up

    /// After a restart (clean or SIGKILL): runs still open in the database are recorded
    /// `agent-restart` (their title kept) and what they left running is killed — through their
    /// cgroup, or through their process group only where it is verified to be theirs; a run of
    /// an earlier boot kills nothing (``LeftoverPlan``). Then whatever else the dead agent's runs
    /// left is killed: in its cgroups (``UnrecordedLeftovers``) or, where it had none, found by
    /// their environment (``LeftoverProcesses``). Returns the highest run number
    /// taken, recorded or killed (the scheduler numbers new runs after it), nil when the database
    /// cannot be read.
    @discardableResult
    func recoverUnfinishedRuns() -> UInt64? {
        do {
            guard let (highest, unfinished) = try state.reading({ store in
                (try store.highestRunNumber(), try store.unfinishedRuns())
            }) else { return nil }
            let places = unfinished.map { run in
                RecordedRunPlace(runID: run.runID, identifier: run.identifier, bootID: run.bootID,
                                 cgroup: run.cgroup, processGroup: run.processGroup)
            }
            recovered = unfinished.map {
                RecoveredRun(runID: $0.record.runID, job: $0.job ?? $0.record.identifier, title: $0.record.title ?? $0.record.identifier)
            }
            for (run, place) in zip(unfinished, places) {
                let done = launcher.recover(place)
                var ended = run
                ended.endedAt = loop.clock.realtimeMilliseconds
                ended.stopReason = .known(.agentRestart)
                let record = ended
                stateWriter.write("the end of run \(run.runID) (agent-restart)") { database in
                    try RunStore(database: database).finish(record)
                }
                log.warning("run \(run.runID) of \(run.identifier) was live when the agent stopped: recorded agent-restart; \(done)")
            }
            let unrecorded = launcher.recoverUnrecorded(after: places, highest: highest, launchedAny: launchedAny)
            for (run, done) in unrecorded {
                log.warning("run \(run) still had processes though no live run of that id was recorded (the agent "
                    + "was stopped right after starting it, or while ending it): \(done)")
            }
            // Their ids stay taken: a new run of the same id would read as the killed one in the log.
            return max(highest, unrecorded.map(\.run.number).max() ?? 0)
        } catch {
            stateWriter.report(error)
            return nil
        }
    }

    // MARK: launching

    /// Carries out a launch the scheduler decided, under the run id it gave (the only launcher:
    /// it has already checked that the agent is not stopping and the identifier is free). A
    /// plugin that cannot be started is a run that ends `spawn-failed(reason)`.
    func launch(_ order: LaunchOrder) {
        launchedAny = true
        let job = order.job
        let submission = order.submission
        let id = order.run
        let clock = readClock()
        let nowMs = clock.realtimeMilliseconds
        // A submission may name the job with a dynamic suffix (com.example.export.<uuid>).
        let identifier = submission?.identifier ?? job.identifier
        let checkpoint = recorder.checkpoint(of: identifier)
        var state = LiveRun(id: id, identifier: identifier, kind: job.kind,
                            reason: order.reason, startedAt: nowMs / 1000, settings: RunLifecycle.Settings(job: job),
                            checkpoint: checkpoint.value, chainedInput: order.chainedInput)
        if let problem = checkpoint.problem {
            log.warning("run \(id) of \(identifier): \(problem)")
            state.appendLog(problem)
        }
        if let title = submission?.title { _ = state.apply(.title(title)) }
        if let subtitle = submission?.subtitle { _ = state.apply(.subtitle(subtitle)) }
        let run = ActiveRun(state: state, job: job, startedAtMilliseconds: nowMs)
        live[id] = run
        // Starting the lifecycle before the spawn fixes AGENTD_DEADLINE.
        send(.started(wallClock: SchedulerTime(seconds: Double(nowMs) / 1000)), to: run, at: clock.monotonic)

        // DESIGN §5: a false Condition…= is a skipped run, nothing spawned (not a failure).
        if let failed = failedCondition(of: job) {
            recorder.started(run, process: nil, bootID: launcher.bootID)
            onRunStarted?(job.identifier, id, order.reason)
            send(.skipped(failed), to: run)
            return
        }
        run.arguments = submission?.arguments ?? []
        if let previous = order.chainedInput, previous.previousStopReason != nil {
            run.previousOutput = failureOutputs.take(previous.previousRunID) ?? []
        }
        switch launcher.start(run, arguments: run.arguments, events: callbacks(id)) {
        case .success(let process):
            run.process = process
            recorder.started(run, process: process, bootID: launcher.bootID)
            log.info("run \(id) of \(state.identifier) started (\(order.reason.rawValue), pid \(process.pid))",
                     fields: LogFields(.runStarted, identifier: state.identifier.rawValue, runID: id.description))
            onRunStarted?(job.identifier, id, order.reason)
        case .failure(let failure):
            recorder.started(run, process: nil, bootID: launcher.bootID)
            onRunStarted?(job.identifier, id, order.reason)
            if !skipsFailedCommand(run, failure) { send(.spawnFailed(failure.message), to: run) }
        }
    }

    /// A `-` command whose program cannot be run (missing, unsafe) failed, and its `-` lets the
    /// run go on, as systemd ignores its 203/EXEC (mdadm's `ExecStartPre=-…/mdadm_env.sh`, a
    /// file the package does not ship): the lifecycle hears of a command that exited 203.
    private func skipsFailedCommand(_ run: ActiveRun, _ failure: LaunchProblem) -> Bool {
        let index = run.state.lifecycle.command
        guard failure.refusesProgram, run.job.commands.indices.contains(index), run.job.commands[index].mayFail else { return false }
        let line = "command \(index + 1) not started (\(failure.message)); its - prefix lets the run go on"
        log.notice("run \(run.state.id) of \(run.state.identifier): \(line)")
        run.state.appendLog(line)
        send(.mainExited(.exited(203)), to: run)
        send(.allProcessesGone, to: run)
        return true
    }

    private func forget(_ id: RunID) { live[id] = nil }

    private func callbacks(_ id: RunID) -> PluginProcess.Callbacks {
        PluginProcess.Callbacks(
            onOutput: { [unowned self] stream, read in self.output(id, stream, read) },
            onMainExit: { [unowned self] termination in self.mainExited(id, termination) },
            onGone: { [unowned self] in self.gone(id) })
    }

    /// The run's next `Exec=` line, as its lifecycle decided: spawned into the same cgroup; a
    /// spawn that fails ends the run `spawn-failed` like a first one.
    func spawnNextCommand(_ run: ActiveRun) {
        switch launcher.start(run, arguments: run.arguments, events: callbacks(run.state.id)) {
        case .success(let process):
            run.process = process
            recorder.commandStarted(run, process: process)
            log.info("run \(run.state.id) of \(run.state.identifier): command \(run.state.lifecycle.command + 1) started (pid \(process.pid))")
        case .failure(let failure):
            if !skipsFailedCommand(run, failure) { send(.spawnFailed(failure.message), to: run) }
        }
    }

    /// The job's first false `Condition…=` as `skipped(…)` names it; nil when they all hold.
    private func failedCondition(of job: JobDefinition) -> String? {
        let conditions = job.extra.conditions
        guard !conditions.isEmpty else { return nil }
        guard let facts = conditionFacts?() else { return "no condition facts" }
        guard case .fails(let condition) = ConditionVerdict.evaluate(conditions, facts: facts) else { return nil }
        return condition.description
    }

    // MARK: ending

    func mainExited(_ id: RunID, _ termination: ProcessTermination) {
        guard let run = live[id] else { return }
        send(.mainExited(termination), to: run)
    }

    func gone(_ id: RunID) {
        guard let run = live[id] else { return }
        // Orphans that escaped the run's group and cgroup are found among the agent's children.
        launcher.reapStrays(keeping: Set(live.values.compactMap { $0.process?.pid }))
        if let failure = run.process?.spawnFailure {
            launcher.releaseLimits(run)
            send(.spawnFailed(launcher.problem(of: failure, job: run.job).message), to: run)
            return
        }
        // Between two commands the run goes on: its limits are read at its real end.
        if run.state.lifecycle.awaitsNextCommand {
            send(.allProcessesGone, to: run)
            return
        }
        let hits = launcher.limitHits(run)
        for hit in hits {
            log.notice("run \(id) of \(run.state.identifier): limit reached: \(hit)")
        }
        if !hits.isEmpty { send(.limitReached, to: run) }
        send(.allProcessesGone, to: run)
    }

    func finish(_ run: ActiveRun, stopReason: StopReason) {
        let id = run.state.id
        lastEnded = (id, stopReason)
        if let token = run.lifecycleTimer { loop.cancel(token); run.lifecycleTimer = nil }
        run.lifecycleTimerDue = nil
        forget(id)
        let suppressed = logLimiter.finish(id)
        if suppressed > 0 {
            log.notice("[\(run.state.identifier) \(id)] \(LogRateLimiter<RunID>.suppressedMessage(suppressed))")
        }
        // The loop's clock; a run started later in this same iteration (fresh read) cannot end before it began.
        let endedMs = max(loop.clock.realtimeMilliseconds, run.startedAtMilliseconds)
        var exitStatus: Int32?
        var signal: Int32?
        switch run.state.lifecycle.termination {
        case .exited(let status)?:
            exitStatus = status
            // Expired or cancelled, it exited by itself: the signal is the one it was sent.
            if case .expired = stopReason { signal = run.state.lifecycle.lastStopSignal }
            if case .cancelled = stopReason { signal = run.state.lifecycle.lastStopSignal }
        case .signaled(let number)?: signal = number
        case nil: break
        }
        if run.job.extra.onFailure != nil, stopReason.chainsOnFailure {
            failureOutputs.keep(id, run.state.logTail.lines)
        }
        recorder.ended(run, Self.endRecord(of: run, stopReason: stopReason, endedAt: endedMs,
                                           exitStatus: exitStatus, signal: signal),
                       success: stopReason == .success)
        let seconds = Double(endedMs - run.startedAtMilliseconds) / 1000
        let truncated = run.process?.truncatedLines ?? 0
        let invalid = run.state.invalidDirectives
        var notes = ""
        if truncated > 0 { notes += ", \(truncated) lines truncated at 4096 bytes" }
        if invalid > 0 { notes += ", \(invalid) invalid directives ignored" }
        log.info("run \(id) of \(run.state.identifier) ended: \(stopReason) after \(formatSeconds(seconds))\(notes)",
                 fields: LogFields(.runEnded, identifier: run.state.identifier.rawValue, runID: id.description,
                                   stopReason: stopReason.description))
        onRunEnded?(RunEnd(job: run.job.identifier, identifier: run.state.identifier, kind: run.job.kind, run: id,
                           stop: stopReason, startedAtMilliseconds: run.startedAtMilliseconds, endedAtMilliseconds: endedMs,
                           result: run.state.result, status: run.state.statusText))
        if live.isEmpty { onIdle?() }
    }

    // MARK: queries

    func run(_ id: RunID) -> ActiveRun? { live[id] }

    /// Live runs of a job, or of one submission's dynamic identifier.
    func runs(of identifier: Identifier) -> [ActiveRun] {
        live.values.filter { $0.state.identifier == identifier || $0.job.identifier == identifier }
            .sorted { $0.state.id < $1.state.id }
    }

    func summaries() -> [RunSummary] {
        liveRuns.map { run in
            let stopping = run.state.lifecycle.stop.map(Reported.known)
            var summary = RunSummary(
                runID: run.state.id.description, identifier: run.state.identifier.rawValue,
                kind: run.state.kind, reason: .known(run.state.reason), pid: run.process?.pid ?? 0,
                startedAt: run.state.startedAt, deadline: run.state.deadline,
                progress: run.state.progress?.fraction, title: run.state.title, subtitle: run.state.subtitle,
                statusText: run.state.statusText, stopping: stopping,
                paused: run.state.lifecycle.pausedReason)
            summary.completedUnitCount = run.state.progress?.completedUnitCount
            summary.totalUnitCount = run.state.progress?.totalUnitCount
            return summary
        }
    }

    /// At exit, once every run has ended: the runs' parent cgroups go (idempotent).
    func removeCgroups() { launcher.removeCgroups() }
}

private func formatSeconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) s"
}

/// A run an earlier agent left live, as the start-up recovery found it.
struct RecoveredRun {
    var runID: String
    /// Its job's identifier (a dynamic identifier's job).
    var job: String
    /// Its title, else its identifier: what its notification showed.
    var title: String
}
