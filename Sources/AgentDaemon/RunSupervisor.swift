// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore
import AgentSystem
import Glibc

/// Launches plugins, follows each run to its end on the event loop, and carries out what each
/// run's ``RunLifecycle`` decides (MaxRuntime, ProgressTimeout, pause, teardown, the one result),
/// with one timer per run at its next deadline.
final class RunSupervisor {
    private let loop: EventLoop
    private let log: Logger
    private let catalogue: JobCatalogue
    private let state: StateDirectory
    private let stateWriter: StateWriter
    /// Where per-job `STATE_DIRECTORY`s go (`<state>/jobs/ID`).
    private let jobsDirectory: String
    /// Benchmarks read how late each teardown step went out.
    private let logsLateness: Bool
    private var live: [RunID: ActiveRun] = [:]
    private var nextRunNumber: UInt64 = 0
    private let buffer = ReadBuffer()
    /// Parent cgroup of every run's cgroup; nil where cgroup v2 is not writable (process groups only).
    private(set) var cgroupParent: String?
    /// What enforces TasksMax=/MemoryMax=/MemoryHigh= here (nil before setUpCgroups).
    private(set) var limitControllers: LimitControllers?
    /// Makes the next runs' cgroups ahead and removes ended runs' cgroups, off the loop.
    private(set) var cgroupWorker: RunCgroupWorker?
    private var users = UserCache()
    /// Checks each plugin again right before it is spawned (DESIGN §3).
    private let safety: PluginSafety
    /// This boot's id, recorded with each run; nil when it cannot be read.
    private let bootID: String?
    /// Kills and cleans up what runs of a dead agent left (kept while cgroups wait to empty).
    private var recovery: RunRecovery?
    private var logLimiter = LogRateLimiter<RunID>(limit: 200, interval: .seconds(1))
    private let lang: String?
    /// Called when the last live run has ended (used for a clean shutdown).
    var onIdle: (() -> Void)?
    /// Every run start and end, by job identifier, for the scheduler.
    var onRunStarted: ((Identifier, RunID, RunReason) -> Void)?
    var onRunEnded: ((RunEnd) -> Void)?
    /// A run's progress moved by at least a whole percent (least-progress-first decisions).
    var onRunProgress: ((RunID, Double) -> Void)?
    /// Every `PROGRESS=`, `TITLE=`, `SUBTITLE=` and `STATUS=` line (the event stream).
    var onRunDirective: ((RunID, PluginDirective) -> Void)?
    /// The control socket, handed to every run as `AGENTD_SOCKET`.
    var socketPath: String?

    init(loop: EventLoop, log: Logger, catalogue: JobCatalogue, state: StateDirectory, stateWriter: StateWriter,
         procRoot: String, logsLateness: Bool) {
        self.loop = loop
        self.log = log
        self.catalogue = catalogue
        self.state = state
        self.stateWriter = stateWriter
        self.logsLateness = logsLateness
        jobsDirectory = state.path + "/jobs/"
        lang = getenv("LANG").map { String(cString: $0) }
        let user = SystemFactsProbe.currentUser()
        safety = PluginSafety(agentUID: user.uid, agentUserName: user.name)
        switch BootID.read(procRoot: procRoot) {
        case .success(let id): bootID = id
        case .failure(let error):
            bootID = nil
            log.warning("no boot id (\(error)): after a restart, leftovers of runs are killed only through their cgroups")
        }
        setUpCgroups()
        Subreaper.become()
    }

    /// Live runs in run-id order (sorts: for answers, not for counting).
    var liveRuns: [ActiveRun] { live.values.sorted { $0.state.id < $1.state.id } }
    var liveCount: Int { live.count }
    /// Live runs per kind, without sorting them.
    var liveCountByKind: [JobKind: Int] { live.values.reduce(into: [:]) { $0[$1.job.kind, default: 0] += 1 } }
    var isIdle: Bool { live.isEmpty }

    // MARK: start-up

    private func setUpCgroups() {
        let hierarchy = CgroupHierarchy.detect()
        if let hierarchy {
            do {
                let parent = try hierarchy.makeRunsParent(named: "agentd-runs.\(getpid())")
                cgroupParent = parent
                log.info("runs get cgroups under \(parent)")
            } catch {
                log.notice("cgroup \(hierarchy.ownDirectory) is not writable (\(error)): runs are tracked by process group only")
            }
        } else {
            log.notice("no cgroup v2 hierarchy: runs are tracked by process group only")
        }
        setUpLimits(hierarchy)
        let pidsParent = limitControllers?.pidsParent
        if cgroupParent != nil || pidsParent != nil {
            cgroupWorker = RunCgroupWorker(layout: .init(unifiedParent: cgroupParent, pidsParent: pidsParent,
                                                         name: { "run-\(RunID($0))" }))
        }
    }

    private func setUpLimits(_ hierarchy: CgroupHierarchy?) {
        if let files = OpenFileLimit.raiseSoftToHard(), files.soft < 4096 {
            log.warning("open files limited to \(files.soft): about \(files.soft / 5) runs can start at once; raise LimitNOFILE= (agentd.service sets 65536)")
        }
        let controllers = LimitControllers.setUp(unified: hierarchy, runsParent: cgroupParent,
                                                 groupName: "agentd-runs.\(getpid())")
        limitControllers = controllers
        let summary = LimitEnforcement.summary(controllers.enforcement)
        let text = "per-run limits: " + (summary.enforced + summary.notEnforced).joined(separator: ", ")
        if summary.notEnforced.isEmpty { log.info(text) } else { log.notice(text) }
    }

    /// After a restart (clean or SIGKILL): runs still open in the database are recorded
    /// `agent-restart` (their title kept) and what they left running is killed — through their
    /// cgroup, or through their process group only where it is verified to be theirs; a run of
    /// an earlier boot kills nothing (``LeftoverPlan``). Killed cgroups are removed once empty,
    /// from the loop.
    func recoverUnfinishedRuns() {
        guard let store = state.runStore else { return }
        let recovery = self.recovery ?? RunRecovery(
            loop: loop, log: log, currentBoot: bootID,
            cgroupMount: CgroupHierarchy.detect()?.mountPoint, ownParent: cgroupParent)
        self.recovery = recovery
        do {
            nextRunNumber = max(nextRunNumber, try store.highestRunNumber())
            for run in try store.unfinishedRuns() {
                let done = recovery.recover(RecordedRunPlace(
                    runID: run.runID, identifier: run.identifier, bootID: run.bootID,
                    cgroup: run.cgroup, processGroup: run.processGroup))
                var ended = run
                ended.endedAt = loop.clock.realtimeMilliseconds
                ended.stopReason = StopReason.agentRestart.description
                try store.finish(ended)
                log.warning("run \(run.runID) of \(run.identifier) was live when the agent stopped: recorded agent-restart; \(done)")
            }
        } catch {
            stateWriter.report(error)
        }
    }

    /// The state database cannot be read at start: numbers continue from the clock (seconds
    /// since the epoch) so they cannot collide with those it holds once it can be read.
    func numberRunsFromClock() {
        nextRunNumber = max(nextRunNumber, UInt64(max(0, WallClock.now() / 1_000_000_000)))
    }

    // MARK: launching

    /// Carries out a launch the scheduler decided (the only launcher: it has already checked
    /// that the agent is not stopping and the identifier is free). A plugin that cannot be
    /// started is a run that ends `spawn-failed(reason)`.
    func launch(_ order: LaunchOrder) -> RunID {
        let job = order.job
        let reason = order.reason
        let submission = order.submission
        let extraArguments = submission?.arguments ?? []
        nextRunNumber += 1
        let id = RunID(nextRunNumber)
        // Fresh clock reads here (wall and monotonic below), not the loop's: launches in one
        // burst each start when they start, and MaxRuntime counts from there.
        let nowMs = WallClock.now() / 1_000_000
        let checkpoint = try? state.runStore?.checkpoint(identifier: job.identifier.rawValue)
        // A submission may name the job with a dynamic suffix (com.example.export.<uuid>).
        var state = LiveRun(id: id, identifier: submission?.identifier ?? job.identifier, kind: job.kind,
                            reason: reason, startedAt: nowMs / 1000, settings: RunLifecycle.Settings(job: job),
                            checkpoint: checkpoint ?? nil, chainedInput: order.chainedInput)
        if let title = submission?.title { _ = state.apply(.title(title)) }
        if let subtitle = submission?.subtitle { _ = state.apply(.subtitle(subtitle)) }
        let run = ActiveRun(state: state, job: job, startedAtMilliseconds: nowMs)
        live[id] = run
        // Starting the lifecycle before the spawn fixes AGENTD_DEADLINE.
        send(.started(wallClock: SchedulerTime(seconds: Double(nowMs) / 1000)), to: run, at: MonotonicInstant.now())

        let bootID = self.bootID
        switch spawn(run, extraArguments: extraArguments) {
        case .success(let process):
            run.process = process
            persist("the start of run \(id)") { store in
                try store.insert(StoredRun(runID: id.description, identifier: state.identifier.rawValue,
                                           kind: job.kind.rawValue, reason: reason.rawValue, startedAt: nowMs,
                                           title: state.title, processGroup: process.processGroup,
                                           cgroup: process.cgroup?.path, bootID: bootID))
            }
            log.info("run \(id) of \(state.identifier) started (\(reason.rawValue), pid \(process.pid))",
                           fields: LogFields(.runStarted, identifier: state.identifier.rawValue, runID: id.description))
            onRunStarted?(job.identifier, id, reason)
        case .failure(let failure):
            persist("the start of run \(id)") { store in
                try store.insert(StoredRun(runID: id.description, identifier: state.identifier.rawValue,
                                           kind: job.kind.rawValue, reason: reason.rawValue, startedAt: nowMs,
                                           title: state.title, bootID: bootID))
            }
            onRunStarted?(job.identifier, id, reason)
            send(.spawnFailed(failure.message), to: run)
        }
        return id
    }

    /// The agent's own nice value, read once: plugins are reset from it to their `Nice=`.
    private lazy var agentNice: Int32 = {
        errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }()

    /// The uid a root agent runs a drop-in script as, which may own the script (DESIGN §3: it
    /// runs as its owner; the registry has resolved `User=` to that owner).
    private func dropInOwner(_ job: JobDefinition) -> UInt32? {
        guard job.isDropInScript, geteuid() == 0, let name = job.user else { return nil }
        return users.lookup(name, now: loop.now)?.uid
    }

    private func spawn(_ run: ActiveRun, extraArguments: [String]) -> Result<PluginProcess, LaunchProblem> {
        let job = run.job
        guard let program = job.exec.first else { return .failure(LaunchProblem("Exec= names no program")) }
        // Checked at every spawn, not only when the job loaded: a plugin made world-writable
        // since never runs (DESIGN §3). First, before anything is made for the run.
        let executable: CheckedExecutable
        switch safety.check(program, runAsOwner: dropInOwner(job)) {
        case .success(let checked): executable = checked
        case .failure(let refusal): return .failure(LaunchProblem(refusal.message))
        }
        var user: UserAccount?
        if geteuid() == 0 {
            let name = job.user ?? catalogue.settings.resolvedDefaultUser(privileged: true, agentUserName: "root")
            guard let account = users.lookup(name, now: loop.now) else { return .failure(LaunchProblem("no such user \(name)")) }
            user = account
        }
        let stateDirectory = self.stateDirectory(of: job)
        let makesStateDirectory: mode_t?
        switch prepareStateDirectory(stateDirectory, for: user) {
        case .success(let mode): makesStateDirectory = mode
        case .failure(let problem): return .failure(problem)
        }

        // Made ahead by the worker where it could (the loop then waits for no cgroup lock).
        let made = cgroupWorker?.take(run.state.id.number)
        var cgroup: RunCgroup?
        if let parent = cgroupParent {
            do {
                cgroup = try RunCgroup.create(parent: parent, name: "run-\(run.state.id)",
                                              made: made?.unified != nil, remover: cgroupWorker,
                                              controllers: limitControllers?.unified ?? [])
            } catch {
                log.warning("run \(run.state.id): no cgroup (\(error)); tracking its process group only")
                if let unused = made?.unified { cgroupWorker?.discard(unused) }
            }
        }
        if let unused = made?.pidsGroup, !LimitControllers.limits(job.limits, need: "pids") {
            cgroupWorker?.discard(unused)
        }
        do {
            run.limitGroups = try limitControllers?.prepare(run: "run-\(run.state.id)", limits: job.limits, cgroup: cgroup,
                                                            made: Set([made?.pidsGroup].compactMap { $0 }))
        } catch {
            cgroup?.remove()
            return .failure(LaunchProblem("per-run limits: \(error)"))
        }
        var request = SpawnRequest(
            executable: executable, arguments: job.exec + extraArguments,
            environment: PluginEnvironment.build(job: job, run: run.state, stateDirectory: stateDirectory, lang: lang,
                                                 socket: socketPath),
            workingDirectory: stateDirectory, user: user, cgroup: cgroup,
            moreCgroupProcsFDs: run.limitGroups?.joinDescriptors ?? [])
        request.makesWorkingDirectory = makesStateDirectory
        // `Nice=`, else 0 (DESIGN §3) when the agent itself runs above it (agentd.service's
        // Nice=-10): a plugin never inherits the agent's own priority.
        request.nice = job.priority.nice.map(Int32.init) ?? (agentNice < 0 ? 0 : nil)
        request.ioPriority = job.priority.ioPriorityValue
        request.separatesMemory = job.limits.limitsMemory
        if let weight = job.priority.cpuWeight { _ = cgroup?.setCPUWeight(weight) }
        let spawned = PluginSpawner.spawn(request)
        run.limitGroups?.closeJoinDescriptors()
        switch spawned {
        case .failure(let failure):
            cgroup?.remove()
            releaseLimitGroups(run)
            return .failure(LaunchProblem(failure.description))
        case .success(let child):
            let id = run.state.id
            let callbacks = PluginProcess.Callbacks(
                onLine: { [unowned self] stream, line, wasCut in self.line(id, stream, line, wasCut: wasCut) },
                onMainExit: { [unowned self] termination in self.mainExited(id, termination) },
                onGone: { [unowned self] in self.gone(id) })
            do {
                let process = try PluginProcess(loop: loop, child: child, cgroup: cgroup,
                                                buffer: buffer, callbacks: callbacks)
                process.priority = job.priority
                return .success(process)
            } catch {
                child.killGroup()
                cgroup?.killAll()
                releaseLimitGroups(run)
                return .failure(LaunchProblem("cannot watch the child: \(error)"))
            }
        }
    }

    /// What a child that failed before its execve says in `spawn-failed(…)`.
    private func problem(of failure: SpawnFailure, job: JobDefinition) -> LaunchProblem {
        if failure.isWorkingDirectory {
            // The child makes the job's state directory at its first run (prepareStateDirectory).
            return LaunchProblem("state directory: \(failure.step) \(stateDirectory(of: job)): \(SystemError.text(failure.errno)); check that \(jobsDirectory) is writable by the agent and its file system is neither full nor read-only (ls -ld \(jobsDirectory); lsattr -d \(jobsDirectory); df -h \(jobsDirectory))")
        }
        guard failure.isVerification, let program = job.exec.first else { return LaunchProblem(failure.description) }
        // The child's last look found the plugin changed since the check: say how now.
        if case .failure(let refusal) = safety.check(program, runAsOwner: dropInOwner(job)) { return LaunchProblem(refusal.message) }
        return LaunchProblem("unsafe: \(program) changed while it was being started; find out who is changing it")
    }

    /// A job's `STATE_DIRECTORY`.
    private func stateDirectory(of job: JobDefinition) -> String { jobsDirectory + job.identifier.rawValue }

    /// The job's state directory: nil when it is there, owned as it should be (every run but a
    /// job's first); else the mode the plugin's child makes it with before it drops privileges
    /// (a new directory is an inode allocation, which ext4 can make slow: the loop does not wait
    /// for it). Its parent, shared by every job, is made here when missing.
    private func prepareStateDirectory(_ path: String, for user: UserAccount?) -> Result<mode_t?, LaunchProblem> {
        if FileSystem.isOwnedDirectory(path, owner: user.map { ($0.uid, $0.gid) }) { return .success(nil) }
        let parent = FileSystem.parentDirectory(of: path)
        do {
            if !FileSystem.isOwnedDirectory(parent, owner: nil) { try FileSystem.makeDirectories(parent, mode: 0o750) }
        } catch {
            return .failure(LaunchProblem("state directory: \(error)"))
        }
        return .success(0o750)
    }

    // MARK: output

    private func line(_ id: RunID, _ stream: PluginProcess.Stream, _ bytes: UnsafeBufferPointer<UInt8>, wasCut: Bool) {
        guard let run = live[id] else { return }
        switch stream {
        case .stdout:
            let title = run.state.title
            defer { if run.state.title != title { recordTitle(run) } }
            let directive = PluginDirective.parse(bytes, wasCut: wasCut)
            switch run.state.apply(directive) {
            case .progressed:
                // The hot path (a plugin may print thousands a second): a PROGRESS= line yields no
                // action and moves no deadline (RunLifecycleTests), so no timer to look at.
                _ = run.state.handle(.progress, now: loop.now.sinceOrigin)
                reportProgress(run)
                onRunDirective?(run.state.id, directive)
            case .checkpointed:
                markCheckpointDirty(run)
            case .logLine(let text):
                logPluginLine(run, text)
            case .none:
                onRunDirective?(run.state.id, directive)
            case .invalid:
                break
            }
        case .stderr:
            let text = String(decoding: bytes, as: UTF8.self)
            run.state.appendLog(text)
            logPluginLine(run, text)
        }
    }

    private func logPluginLine(_ run: ActiveRun, _ text: String) {
        switch logLimiter.admit(run.state.id, now: loop.now) {
        case .emit(let suppressed):
            if suppressed > 0 {
                log.notice("[\(run.state.identifier) \(run.state.id)] \(LogRateLimiter<RunID>.suppressedMessage(suppressed))",
                                 fields: Self.outputFields(run))
            }
            log.info("[\(run.state.identifier) \(run.state.id)] \(text)", fields: Self.outputFields(run))
        case .suppress:
            break
        }
    }

    /// Checkpoints are written at most once a second while a run is live, and at its end.
    private func markCheckpointDirty(_ run: ActiveRun) {
        run.checkpointDirty = true
        guard run.checkpointTimer == nil else { return }
        let id = run.state.id
        run.checkpointTimer = loop.schedule(after: .seconds(1)) { [unowned self] in
            guard let run = self.live[id] else { return }
            run.checkpointTimer = nil
            self.saveCheckpoint(run)
        }
    }

    /// A new title is written at once, so a run the agent does not see to its end (kill -9)
    /// keeps it; further changes at most once a second (a plugin may print TITLE= in a loop).
    private func recordTitle(_ run: ActiveRun) {
        run.titleDirty = true
        guard run.titleTimer == nil else { return }
        saveTitle(run)
        let id = run.state.id
        run.titleTimer = loop.schedule(after: .seconds(1)) { [unowned self] in
            guard let run = self.live[id] else { return }
            run.titleTimer = nil
            if run.titleDirty { self.recordTitle(run) }
        }
    }

    private func saveTitle(_ run: ActiveRun) {
        run.titleDirty = false
        let title = run.state.title
        let runID = run.state.id.description
        persist("the title of run \(runID)", key: "title " + runID) { store in
            try store.recordTitle(title, runID: runID)
        }
    }

    private func saveCheckpoint(_ run: ActiveRun) {
        guard run.checkpointDirty, let value = run.state.checkpoint else { return }
        run.checkpointDirty = false
        let identifier = run.state.identifier.rawValue
        // When the checkpoint came (this iteration), even if the write is retried later.
        let at = loop.clock.realtimeMilliseconds
        persist("the checkpoint of \(identifier)", key: "checkpoint " + identifier) { store in
            try store.saveCheckpoint(value, identifier: identifier, at: at)
        }
    }

    private func reportProgress(_ run: ActiveRun) {
        guard let fraction = run.state.progress?.fraction else { return }
        // 0.29 * 100 is 28.999…: a tolerance keeps a whole percent whole.
        let percent = Int(fraction * 100 + 1e-9)
        guard percent != run.reportedPercent else { return }
        run.reportedPercent = percent
        onRunProgress?(run.state.id, fraction)
    }

    // MARK: pausing (OnConditionLost=pause)

    /// Freezes a run whose condition is lost; its MaxRuntime and ProgressTimeout clocks stop.
    func freeze(_ id: RunID, because reason: String) {
        guard let run = live[id] else { return }
        send(.frozen(reason: reason), to: run)
    }

    /// Thaws a frozen run; its clocks go on from where they stopped, and the deadline status
    /// shows moves by the time it was frozen.
    func thaw(_ id: RunID) {
        guard let run = live[id], let pause = run.state.lifecycle.pause else { return }
        guard send(.thawed, to: run).contains(.thaw) else { return }
        let frozenFor = loop.now.sinceOrigin - pause.since
        log.notice("run \(id) of \(run.state.identifier): resumed after \(TimeSpan.format(frozenFor)) paused")
    }

    func setLowPriority(_ id: RunID, _ low: Bool) {
        live[id]?.process?.setLowPriority(low)
    }

    // MARK: stopping

    /// Starts the teardown of a run (SIGTERM and SIGCONT to all its processes, then SIGKILL after
    /// GracePeriod); false when it was already stopping or its main process has exited.
    @discardableResult
    func expire(_ id: RunID, reason: ExpiryReason) -> Bool {
        guard let run = live[id] else { return false }
        return startsStop(.expire(reason), run)
    }

    /// Stops a run because a person asked (`agentctl cancel`), with the same teardown.
    @discardableResult
    func cancel(_ id: RunID) -> Bool {
        guard let run = live[id] else { return false }
        return startsStop(.cancel, run)
    }

    /// At shutdown: every live run gets the teardown and ends `agent-restart` (a cancelled one
    /// stays cancelled); `onIdle` fires when the last one is gone.
    func stopAll() {
        for run in liveRuns { send(.agentStopping, to: run) }
    }

    private func startsStop(_ event: RunLifecycleEvent, _ run: ActiveRun) -> Bool {
        let before = run.state.lifecycle.stop
        send(event, to: run)
        return before == nil && run.state.lifecycle.stop != nil
    }

    // MARK: the lifecycle

    /// Hands one event to a run's lifecycle at `now` (the loop's time unless given), carries out
    /// the actions in order, and keeps the run's one timer at the lifecycle's next deadline.
    @discardableResult
    private func send(_ event: RunLifecycleEvent, to run: ActiveRun, at now: MonotonicInstant? = nil) -> [RunAction] {
        let instant = now ?? loop.now
        // Benchmarks read how late each teardown step went out, against when it was due.
        let due: MonotonicInstant? = switch event {
        case .deadlineReached: run.state.lifecycle.nextDeadline.map { .zero + $0 }
        case .expire, .cancel, .agentStopping: instant
        default: nil
        }
        let stopBefore = run.state.lifecycle.stop
        let actions = run.state.handle(event, now: instant.sinceOrigin)
        if stopBefore == nil, let stop = run.state.lifecycle.stop { logStop(run, stop) }
        for action in actions { carry(action, for: run, due: due) }
        rearmLifecycleTimer(run)
        return actions
    }

    private func carry(_ action: RunAction, for run: ActiveRun, due: MonotonicInstant?) {
        switch action {
        case .signal(let signal):
            run.process?.signalAll(signal)
            logLateness(run, "sendSignal(\(signal))", due: due)
        case .killAll:
            run.process?.killAll()
            logLateness(run, "killAll", due: due)
        case .freeze:
            guard let method = run.process?.freeze() else { return }
            log.notice("run \(run.state.id) of \(run.state.identifier): paused (\(run.state.lifecycle.pausedReason ?? "")) by \(method == .cgroup ? "cgroup.freeze" : "SIGSTOP")")
        case .thaw:
            run.process?.thaw()
        case .setDeadline:
            break  // status reads it from the run's state
        case .record(let stopReason):
            finish(run, stopReason: stopReason)
        }
    }

    private func logStop(_ run: ActiveRun, _ stop: RunStop) {
        let prefix = "run \(run.state.id) of \(run.state.identifier)"
        switch stop {
        case .expired(let reason):
            log.notice("\(prefix): expiring (\(reason.rawValue)), SIGTERM and SIGCONT, then SIGKILL after \(TimeSpan.format(run.job.gracePeriod))",
                             fields: LogFields(.runExpired, identifier: run.state.identifier.rawValue, runID: run.state.id.description,
                                               stopReason: StopReason.expired(reason).description))
        case .cancelled:
            log.notice("\(prefix): cancelled")
        case .agentStopping:
            log.notice("\(prefix): stopping with the agent")
        }
    }

    private func logLateness(_ run: ActiveRun, _ what: String, due: MonotonicInstant?) {
        guard logsLateness, let due else { return }
        // Measured right after sending.
        let late = due.duration(to: MonotonicInstant.now())
        log.info("run \(run.state.id): \(what) sent \(late.components.seconds * 1_000_000 + late.components.attoseconds / 1_000_000_000_000) us after its due time")
    }

    /// One timer per run, moved only when the lifecycle's next deadline moves (a PROGRESS= line
    /// moves none).
    private func rearmLifecycleTimer(_ run: ActiveRun) {
        let next = run.state.lifecycle.nextDeadline
        guard next != run.lifecycleTimerDue else { return }
        if let token = run.lifecycleTimer { loop.cancel(token) }
        run.lifecycleTimer = nil
        run.lifecycleTimerDue = next
        guard let next else { return }
        let id = run.state.id
        run.lifecycleTimer = loop.schedule(at: .zero + next) { [unowned self] in
            guard let run = self.live[id] else { return }
            run.lifecycleTimer = nil
            run.lifecycleTimerDue = nil
            self.send(.deadlineReached, to: run)
        }
    }

    // MARK: ending

    private func mainExited(_ id: RunID, _ termination: ProcessTermination) {
        guard let run = live[id] else { return }
        send(.mainExited(termination), to: run)
    }

    private func gone(_ id: RunID) {
        guard let run = live[id] else { return }
        if let failure = run.process?.spawnFailure {
            releaseLimitGroups(run)
            send(.spawnFailed(problem(of: failure, job: run.job).message), to: run)
            return
        }
        let hits = recordLimitHits(run)
        for hit in hits {
            log.notice("run \(id) of \(run.state.identifier): limit reached: \(hit)")
        }
        if !hits.isEmpty { send(.limitReached, to: run) }
        send(.allProcessesGone, to: run)
    }

    private func finish(_ run: ActiveRun, stopReason: StopReason) {
        let id = run.state.id
        if let token = run.lifecycleTimer { loop.cancel(token); run.lifecycleTimer = nil }
        run.lifecycleTimerDue = nil
        if let token = run.checkpointTimer { loop.cancel(token); run.checkpointTimer = nil }
        if let token = run.titleTimer { loop.cancel(token); run.titleTimer = nil }
        saveCheckpoint(run)
        live[id] = nil
        let suppressed = logLimiter.finish(id)
        if suppressed > 0 {
            log.notice("[\(run.state.identifier) \(id)] \(LogRateLimiter<RunID>.suppressedMessage(suppressed))")
        }
        // The loop's clock; a run started later in this same iteration (fresh read) cannot end before it began.
        let endedMs = max(loop.clock.realtimeMilliseconds, run.startedAtMilliseconds)
        var exitStatus: Int32?
        var signal: Int32?
        switch run.state.lifecycle.termination {
        case .exited(let status)?: exitStatus = status
        case .signaled(let number)?: signal = number
        case nil: break
        }
        let record = Self.endRecord(of: run, stopReason: stopReason, endedAt: endedMs,
                                    exitStatus: exitStatus, signal: signal)
        persist("the end of run \(id)") { store in
            try store.finish(record)
            try store.recordOutcome(identifier: run.state.identifier.rawValue, at: endedMs,
                                    success: stopReason == .success)
        }
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
                           result: run.state.result))
        if live.isEmpty { onIdle?() }
    }

    /// Writes through the state writer: at once when the state can be written, else queued
    /// (bounded) and written when it can be again. `key` lets a newer write replace a queued one.
    private func persist(_ label: String = "a run record", key: String? = nil,
                         _ body: @escaping (RunStore) throws -> Void) {
        stateWriter.write(label, key: key) { database in try body(RunStore(database: database)) }
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
            let stopping = run.state.lifecycle.stop?.description
            var summary = RunSummary(
                runID: run.state.id.description, identifier: run.state.identifier.rawValue,
                kind: run.state.kind.rawValue, reason: run.state.reason.rawValue, pid: run.process?.pid ?? 0,
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
    func removeCgroups() {
        cgroupWorker?.finish()
        cgroupWorker = nil
        if let parent = cgroupParent { CgroupHierarchy.removeRunsParent(parent) }
        cgroupParent = nil
        limitControllers?.removeParents()
        limitControllers = nil
    }

    deinit {
        removeCgroups()
    }
}

extension RunSupervisor {
    /// Journal fields of a plugin's output lines: which run wrote them.
    static func outputFields(_ run: ActiveRun) -> LogFields {
        LogFields(.pluginOutput, identifier: run.state.identifier.rawValue, runID: run.state.id.description)
    }
}

/// Why a plugin could not be started: becomes `spawn-failed(message)`.
struct LaunchProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

extension MonotonicInstant {
    /// The instant as the run lifecycle counts time: a `Duration` since the clock's origin.
    fileprivate var sinceOrigin: Duration { MonotonicInstant.zero.duration(to: self) }
}

private func formatSeconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) s"
}
