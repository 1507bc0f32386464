// SPDX-License-Identifier: Apache-2.0
/// One run's lifecycle from launch to its one result, as a pure state machine (DESIGN §5, §12):
/// `MaxRuntime=` with frozen time excluded, a continued run's `ProgressTimeout=`, the teardown
/// (SIGTERM then SIGCONT to the whole run, `GracePeriod=`, SIGKILL), and the result.
///
/// The daemon passes each event with the monotonic time (`Duration` since any fixed origin),
/// carries out the actions that come back in order, and keeps one timer per run at
/// ``nextDeadline``, sending ``RunLifecycleEvent/deadlineReached`` when it fires. Nothing here
/// reads a clock, so every rule is a virtual-time test.
///
/// Rules:
/// - `MaxRuntime=` counts unfrozen time only: a pause moves the SIGTERM time by its length
///   (``RunAction/setDeadline(_:)`` at thaw). The `AGENTD_DEADLINE` a plugin got at spawn cannot
///   change, so it is the earliest time its SIGTERM can come.
/// - A continued run is expired `no-progress` when no `PROGRESS=` line came for
///   `ProgressTimeout=` of unfrozen time; lines move no deadline (one per window).
/// - Stopping (expiry, cancel, the agent's stop) thaws a frozen run first, then runs the
///   ``Teardown``; its steps are due from when the stop was due, so a late timer never
///   lengthens the grace period. Only the first stop counts.
/// - When the main process exits, whatever it left is killed at once and its result stands
///   (an expiry after that changes nothing); a run stopped before is `expired(reason)` or
///   `cancelled` however it ends, exit 0 in the grace period included; a run still live when the
///   agent began to stop ends `agent-restart` unless a person cancelled it. A per-run limit the
///   kernel enforced, learnt at the end, makes an unstopped run `expired(limit)`.
/// - The result is recorded once, when both the main process's exit and the end of every
///   process are known, in either order; after it, every event is ignored.
/// - With several `Exec=` lines (``CommandSequence``), a command that succeeded (or whose line
///   has `-`) is followed, once all its processes are gone, by ``RunAction/spawnCommand(_:)``
///   for the next; the clocks run on. A stop between two commands spawns no more.
public struct RunLifecycle: Sendable {
    /// The job's time keys that govern a run.
    public struct Settings: Hashable, Sendable {
        public var maxRuntime: Duration?
        /// Continued runs only: nil for the others, whose progress is optional.
        public var progressTimeout: Duration?
        public var gracePeriod: Duration
        /// `SuccessExitStatus=`: what else counts as a command's success besides exit 0.
        public var successExitStatus: SuccessExitStatus
        /// The run's `Exec=` lines, run in order.
        public var commands: CommandSequence

        public init(maxRuntime: Duration?, progressTimeout: Duration?, gracePeriod: Duration,
                    successExitStatus: SuccessExitStatus = SuccessExitStatus(), commands: CommandSequence = CommandSequence()) {
            self.maxRuntime = maxRuntime
            self.progressTimeout = progressTimeout
            self.gracePeriod = gracePeriod
            self.successExitStatus = successExitStatus
            self.commands = commands
        }

        public init(job: JobDefinition) {
            self.init(maxRuntime: job.maxRuntime,
                      progressTimeout: job.kind == .continued ? job.progressTimeout : nil,
                      gracePeriod: job.gracePeriod, successExitStatus: job.extra.successExitStatus,
                      commands: CommandSequence(mayFail: job.commands.map(\.mayFail)))
        }
    }

    /// A frozen run: `reason` is what status shows (`external power`).
    public struct Pause: Hashable, Sendable {
        public var reason: String
        public var since: Duration
    }

    public let settings: Settings
    /// Why the agent is stopping the run; nil while nobody has asked it to stop.
    public private(set) var stop: RunStop?
    /// Why and since when the run is frozen; nil when it is not.
    public private(set) var pause: Pause?
    public private(set) var termination: ProcessTermination?
    /// The command running now (an index into ``Settings/commands``).
    public private(set) var command = 0
    public private(set) var result: StopReason?
    /// The SIGTERM time for `MaxRuntime=` in unix seconds (floored): at launch the value of
    /// `AGENTD_DEADLINE`, later moved by pauses. Nil without `MaxRuntime=`.
    public private(set) var wallDeadline: Int64?

    private var startedAt: Duration?
    private var wallStart: SchedulerTime?
    private var runtime: PausableDeadline?
    private var progressWindow: ProgressWindow?
    private var teardown: TeardownProgress?
    private var endsWithAgent = false
    private var processesGone = false
    /// The command that just exited succeeded and another follows: spawned once its processes are gone.
    private var nextCommand: Int?

    public init(settings: Settings) {
        self.settings = settings
    }

    public var isStopping: Bool { stop != nil }
    /// The grace period of the teardown under way (shorter than the job's before sleep).
    public var teardownGrace: Duration? { teardown?.teardown.totalWait }
    public var pausedReason: String? { pause?.reason }
    public var isEnded: Bool { result != nil }
    /// The stopping signal the agent sent last, for the record of a run that ended by itself
    /// inside its grace period (docs/json.md `signal`): SIGKILL once the teardown killed, else
    /// SIGTERM; nil when nothing stopped it.
    public var lastStopSignal: Int32? {
        guard let teardown else { return nil }
        return teardown.isFinished ? 9 : 15
    }
    /// The command that exited succeeded and another follows once its processes are gone:
    /// the run is not ending (its limits are read at its real end).
    public var awaitsNextCommand: Bool { nextCommand != nil }

    /// When the daemon must send ``RunLifecycleEvent/deadlineReached``; nil when nothing is due
    /// (frozen, no limits, the main process gone, or ended).
    public var nextDeadline: Duration? {
        if tearsDownLeftovers { return teardown?.nextDeadline }
        guard canAct else { return nil }
        if let teardown { return teardown.nextDeadline }
        // Asked after every PROGRESS= line: no array, no allocation.
        switch (runtime?.dueAt, progressWindow?.dueAt) {
        case let (runtime?, progress?): return min(runtime, progress)
        case let (runtime, progress): return runtime ?? progress
        }
    }

    public mutating func handle(_ event: RunLifecycleEvent, now: Duration) -> [RunAction] {
        guard result == nil else { return [] }
        switch event {
        case .started(let wallClock): return start(now: now, wallClock: wallClock)
        case .spawnFailed(let reason): return spawnFailed(reason)
        case .skipped(let condition):
            guard termination == nil, !processesGone else { return [] }
            return record(.skipped(condition))
        case .progress:
            if isRunning { progressWindow?.progressed(at: now) }
            return []
        case .frozen(let reason): return freeze(reason, now: now)
        case .thawed: return thaw(now: now)
        case .expire(let reason): return beginStop(.expired(reason), dueAt: now, now: now)
        case .expireWithin(let reason, let grace):
            return beginStop(.expired(reason), dueAt: now, now: now, grace: min(settings.gracePeriod, grace))
        case .cancel: return beginStop(.cancelled, dueAt: now, now: now)
        case .agentStopping: return agentStopping(now: now)
        case .limitReached: return limitReached(now: now)
        case .mainExited(let value): return mainExited(value)
        case .allProcessesGone:
            processesGone = true
            return spawnNextCommand() ?? finishIfDone()
        case .deadlineReached: return deadlineReached(now: now)
        }
    }

    // MARK: running

    /// Launched, processes possibly alive, and its main process not yet reaped.
    private var canAct: Bool { startedAt != nil && result == nil && termination == nil && !processesGone }
    /// The main process ended inside a stop's grace period while others of the run live on:
    /// they keep the rest of that grace (DESIGN §5: SIGTERM to the whole group, then the grace,
    /// then SIGKILL), and the teardown's SIGKILL ends them.
    private var tearsDownLeftovers: Bool {
        result == nil && termination != nil && !processesGone && teardown.map { !$0.isFinished } == true
    }
    private var isRunning: Bool { canAct && stop == nil && pause == nil }

    private mutating func start(now: Duration, wallClock: SchedulerTime) -> [RunAction] {
        guard startedAt == nil, termination == nil, !processesGone else { return [] }
        startedAt = now
        wallStart = wallClock
        runtime = settings.maxRuntime.map { PausableDeadline(limit: $0, startedAt: now) }
        progressWindow = settings.progressTimeout.map { ProgressWindow(timeout: $0, startedAt: now) }
        wallDeadline = currentWallDeadline
        return wallDeadline.map { [.setDeadline($0)] } ?? []
    }

    private mutating func spawnFailed(_ reason: String) -> [RunAction] {
        guard termination == nil, !processesGone else { return [] }
        return record(.spawnFailed(reason))
    }

    /// Wall start + `MaxRuntime=` + time frozen so far, floored to whole seconds.
    private var currentWallDeadline: Int64? {
        guard let runtime, let wallStart else { return nil }
        let seconds = (wallStart + DurationArithmetic.sum(runtime.limit, runtime.pausedTotal)).seconds.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 9.0e18 else { return nil }
        return Int64(seconds)
    }

    private mutating func freeze(_ reason: String, now: Duration) -> [RunAction] {
        // Frozen already: what holds it changed (battery low, then thermal); status shows the
        // reason that holds it now, and its clocks stay stopped from the first freeze.
        if pause != nil, canAct, stop == nil {
            pause?.reason = reason
            return []
        }
        guard isRunning else { return [] }
        pause = Pause(reason: reason, since: now)
        runtime?.pause(at: now)
        progressWindow?.pause(at: now)
        return [.freeze]
    }

    private mutating func thaw(now: Duration) -> [RunAction] {
        guard canAct, stop == nil, pause != nil else { return [] }
        pause = nil
        runtime?.resume(at: now)
        progressWindow?.resume(at: now)
        let moved = currentWallDeadline
        guard moved != wallDeadline else { return [.thaw] }
        wallDeadline = moved
        return [.thaw, .setDeadline(moved)]
    }

    private mutating func deadlineReached(now: Duration) -> [RunAction] {
        if tearsDownLeftovers { return advanceTeardown(now: now) }
        guard canAct else { return [] }
        if teardown != nil { return advanceTeardown(now: now) }
        if let due = runtime?.dueAt, due <= now {
            return beginStop(.expired(.maxRuntime), dueAt: due, now: now)
        }
        if var window = progressWindow, let due = window.dueAt, due <= now {
            let silent = window.isSilent(at: now)
            progressWindow = window
            if silent { return beginStop(.expired(.noProgress), dueAt: window.silentUntil, now: now) }
        }
        return []
    }

    // MARK: stopping

    private mutating func agentStopping(now: Duration) -> [RunAction] {
        guard canAct || nextCommand != nil, stop != .cancelled else { return [] }
        endsWithAgent = true
        return beginStop(.agentStopping, dueAt: now, now: now)
    }

    /// The first stop starts the teardown, anchored at `dueAt` (when the stop was due); a frozen
    /// run is thawed first, since it could not act on SIGTERM.
    private mutating func beginStop(_ cause: RunStop, dueAt: Duration, now: Duration,
                                    grace: Duration? = nil) -> [RunAction] {
        if nextCommand != nil, stop == nil {
            // Between two commands nothing runs to signal: the next is simply not spawned.
            stop = cause
            nextCommand = nil
            return []
        }
        if canAct, stop != nil, let grace, teardown != nil {
            // Already stopping (cancelled, expired) when a shorter grace is asked (the machine
            // about to sleep): its SIGKILL comes no later than that grace from now.
            teardown?.hasten(to: DurationArithmetic.sum(now, grace))
            return advanceTeardown(now: now)
        }
        guard canAct, stop == nil else { return [] }
        stop = cause
        var actions: [RunAction] = []
        if pause != nil {
            pause = nil
            actions.append(.thaw)
        }
        teardown = TeardownProgress(teardown: Teardown(gracePeriod: grace ?? settings.gracePeriod), startedAt: min(dueAt, now))
        return actions + advanceTeardown(now: now)
    }

    private mutating func advanceTeardown(now: Duration) -> [RunAction] {
        guard var progress = teardown else { return [] }
        let actions = progress.advance(now: now).map { action -> RunAction in
            switch action {
            case .sendSignal(let signal): .signal(signal)
            case .killAll: .killAll
            }
        }
        teardown = progress
        return actions
    }

    /// Learnt at the end, the limit only names the result; while the main process lives, it
    /// is an expiry like any other.
    private mutating func limitReached(now: Duration) -> [RunAction] {
        if canAct { return beginStop(.expired(.limit), dueAt: now, now: now) }
        if startedAt != nil, stop == nil { stop = .expired(.limit) }
        return finishIfDone()
    }

    // MARK: ending

    /// Leftovers are killed at once — unless nothing is left, the teardown already killed them,
    /// or a stop's grace is running: they have the rest of it (`tearsDownLeftovers`).
    private mutating func mainExited(_ value: ProcessTermination) -> [RunAction] {
        guard termination == nil else { return [] }
        let leftoversMayRemain = !processesGone && teardown == nil
        termination = value
        pause = nil
        if stop == nil, !endsWithAgent {
            nextCommand = settings.commands.next(after: command, value, success: settings.successExitStatus)
        }
        return (leftoversMayRemain ? [.killAll] : []) + (spawnNextCommand() ?? finishIfDone())
    }

    private mutating func finishIfDone() -> [RunAction] {
        guard let termination, processesGone else { return [] }
        if endsWithAgent { return record(.agentRestart) }
        switch stop {
        case .expired(let reason)?: return record(.expired(reason))
        case .cancelled?: return record(.cancelled)
        case .agentStopping?, nil:
            // A `-` command's failure is no failure of the run, the last command's included.
            if settings.commands.succeeded(command, termination, success: settings.successExitStatus) {
                return record(.success)
            }
            return record(StopReason.resolve(termination: termination, success: settings.successExitStatus))
        }
    }

    /// The next command once the last one's processes are all gone: its clocks go on (one
    /// `MaxRuntime=` for the run), and the daemon spawns it into the run's cgroup.
    private mutating func spawnNextCommand() -> [RunAction]? {
        guard let next = nextCommand, termination != nil, processesGone else { return nil }
        nextCommand = nil
        command = next
        termination = nil
        processesGone = false
        return [.spawnCommand(next)]
    }

    private mutating func record(_ reason: StopReason) -> [RunAction] {
        guard result == nil else { return [] }
        result = reason
        pause = nil
        return [.record(reason)]
    }
}
