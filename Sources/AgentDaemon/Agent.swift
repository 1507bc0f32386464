// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore
import AgentSystem
import Glibc

/// The running agent. It only wires: it builds each component with what that component uses,
/// connects their callbacks, starts them in order, and handles the signals. Everything runs on
/// the loop's thread.
public final class Agent {
    let options: DaemonOptions
    let loop: EventLoop
    let log: Logger
    let config: ConfigFollower
    private let state: StateDirectory
    /// Every write to the state database, with its queue, retries and checkpoints.
    private let stateWriter: StateWriter
    /// Keeps the runs table bounded (RunRetention).
    private let historyPruner: RunHistoryPruner
    /// What happened, for `subscribe`d connections (`agentctl events`, `submit --wait`, `watch`).
    let events: EventBus
    let runs: RunSupervisor
    private let scheduling: SchedulerDriver
    /// Power, thermal, network and pressure (DESIGN §6).
    let conditions: ConditionMonitor
    private let metrics: MetricsCollector
    /// Keeps `MetricsFile=` current (no timer while nothing changed).
    private let metricsWriter: MetricsFileWriter
    private let service = ServiceNotifier()
    private let serviceStatus: ServiceStatusReporter
    private let facts: AgentFacts
    private var signals: SignalSource?
    private var server: ControlServer?
    /// Set once SIGTERM/SIGINT arrived: live runs are being stopped, nothing new starts.
    private var isStopping = false
    /// The per-user agent's runtime directory, whose removal (logout) stops it.
    private var runtimeWatch: DirectoryRemovalWatch?
    /// `state.db-wal` removed or renamed behind the agent's back: noticed at once, even while idle.
    private var walWatch: DirectoryRemovalWatch?
    /// `state.db` removed or renamed behind the agent's back: written again at once.
    private var databaseWatch: DirectoryRemovalWatch?

    public init(options: DaemonOptions) throws {
        self.options = options
        let journal = Logger.stderrIsJournal(journalStream: getenv("JOURNAL_STREAM").map { String(cString: $0) })
        let log = Logger(timestamps: options.logTimestamps, journal: journal,
                         style: Logger.humanStyleFits(journal: journal) ? .human : .priorityPrefix)
        let loop = try EventLoop()
        self.log = log
        self.loop = loop
        facts = AgentFacts(options: options, startedAtWall: loop.clock.realtime / 1_000_000_000,
                           startedAt: loop.clock.monotonic)
        config = ConfigFollower(directory: options.configDirectory, dataDirectories: options.dataDirectories,
                                loop: loop, log: log)
        state = StateDirectory(path: options.stateDirectory, isPrivate: options.userMode)
        // Every write, sync and checkpoint of the state database runs on this writer's thread.
        let databaseWriter = SQLiteWriter(loop: loop)
        stateWriter = StateWriter(state: state, loop: loop, log: log, commits: databaseWriter,
                                  syncs: WriterSyncs(writer: databaseWriter))
        historyPruner = RunHistoryPruner(loop: loop, stateWriter: stateWriter, log: log)
        events = EventBus(loop: loop, wallClock: { WallClock.now() / 1_000_000 })
        let launcher = RunLauncher(loop: loop, log: log, catalogue: config, stateDirectory: options.stateDirectory,
                                   procRoot: options.procRoot, lang: getenv("LANG").map { String(cString: $0) })
        launcher.socketPath = options.socketPath
        // Orphaned grandchildren of plugins are re-parented to the agent, which reaps them.
        Subreaper.become()
        runs = RunSupervisor(loop: loop, log: log, state: state, stateWriter: stateWriter, launcher: launcher,
                             readClock: { ClockReading.read() }, logsLateness: options.benchProbes)
        scheduling = SchedulerDriver(loop: loop, log: log, catalogue: config, state: state, stateWriter: stateWriter,
                                     events: events, runs: runs,
                                     time: LocalTimeFollower(loop: loop, kernelLoop: loop, log: log),
                                     seed: UInt64(truncatingIfNeeded: loop.clock.realtime) ^ UInt64(getpid()),
                                     offsetRule: SystemTimeZone(), machineID: MachineID.read(),
                                     logsDecisionTimes: options.benchProbes)
        conditions = ConditionMonitor(loop: loop, log: log,
                                      roots: KernelRoots(sysfs: options.sysfsRoot, proc: options.procRoot),
                                      stateDirectory: options.stateDirectory, settings: config.settings,
                                      logsRereads: options.benchProbes, simulatedMachine: options.simulatedMachine,
                                      systemBusAddress: options.systemBusAddress,
                                      sessionsOfUser: options.userMode ? getuid() : nil)
        metrics = MetricsCollector(catalogue: config, loop: loop, state: state, stateWriter: stateWriter,
                                   scheduling: scheduling, runs: runs, conditions: conditions,
                                   startedAtWall: facts.startedAtWall)
        let metrics = self.metrics
        metricsWriter = MetricsFileWriter(loop: loop, log: log, catalogue: config, snapshot: { [unowned metrics] in metrics.snapshot() })
        serviceStatus = ServiceStatusReporter(service: service, loop: loop, catalogue: config, state: state,
                                              runs: runs, scheduling: scheduling)
    }

    /// Starts every adapter and runs the loop until SIGTERM or SIGINT.
    public func run() throws {
        log.info("agentd \(AgentVersion.string) starting (pid \(getpid()), config \(options.configDirectory), state \(options.stateDirectory))")
        // Before anything is touched (DESIGN §10): the recovery below would take the runs of an
        // agent already serving this socket for leftovers of this one's, and kill them.
        try ControlServer.refuseIfServed(options.socketPath)
        prepareUserMode()
        signals = try SignalSource(loop: loop, signals: [SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
            self.handle(signal: signal)
        }
        try SignalSource.ignore(SIGPIPE)
        stateWriter.reopen = { [unowned self] in self.openState() }
        if !openState() {
            // Run numbers continue from the database; until it can be read, from the clock.
            scheduling.numberRunsFromClock()
        }
        try config.start()
        wire()
        startDesktopNotifications()
        // Inputs first, so the first decisions see the machine as it is.
        conditions.start()
        scheduling.start()
        server = try openControlSocket()
        watchRuntimeDirectory()
        let registry = config.registry
        log.notice("ready: \(ServiceStatusReporter.count(registry.manifestCount, "manifest")), \(ServiceStatusReporter.count(registry.jobCount, "job")), \(ServiceStatusReporter.count(config.errorCount, "config error")); socket \(options.socketPath)")
        serviceStatus.ready()
        startWatchdog()
        stateWriter.watchIdleFromStart()
        loop.run()
        runs.removeCgroups()
        stateWriter.shutdown()
        server?.close()
        log.info("agentd stopped")
    }

    /// Connects the components' callbacks (after the first config scan: the scheduler takes the
    /// whole registry when it starts). The closures hold the components unowned: the Agent owns
    /// them all, and a component holding another through a callback would be a cycle.
    /// `ConditionVirtualization=`'s answer: it does not change while the agent runs.
    private lazy var virtualization = VirtualizationProbe.detect(procRoot: options.procRoot, sysfsRoot: options.sysfsRoot)

    private func wire() {
        let events = events, scheduling = scheduling, conditions = conditions, config = config
        let metrics = metrics, metricsWriter = metricsWriter, serviceStatus = serviceStatus
        config.onChanges = { [unowned config, unowned events, unowned scheduling, unowned conditions,
                              unowned serviceStatus] changes in
            events.configChanged(changes)
            guard !changes.isEmpty else { return }
            if changes.contains(where: { $0.settingsChanged }) {
                scheduling.settingsChanged()
                conditions.settingsChanged(config.settings)
            }
            scheduling.jobsUpdated(changes)
            serviceStatus.update()
        }
        stateWriter.onIdle = { [unowned self] in self.trimMemoryIfIdle() }
        runs.report(to: events, scheduling: scheduling,
                    ended: { [unowned metrics, unowned historyPruner] end in
                        metrics.runEnded(end)
                        historyPruner.runEnded()
                    },
                    published: { [unowned serviceStatus] in serviceStatus.update() })
        // Condition…= right before each launch: the file system now, the power state the
        // agent follows, and what it runs in (probed at the first job that asks).
        runs.conditionFacts = { [unowned self, unowned conditions] in
            MachineConditionFacts(virtualization: self.virtualization,
                                  onACPower: conditions.conditions.power.externalPower)
        }
        // The machine woke for a WakeSystem= slot: decide now rather than at the monotonic
        // timer, which stood still while it slept.
        conditions.wake.onFired = { [unowned scheduling] in scheduling.handle(.tick) }
        scheduling.inhibitDelayMax = { [unowned conditions] in conditions.logind.inhibitDelayMax }
        scheduling.beforeDecision = { [unowned conditions] in conditions.freshenSampledInputs() }
        scheduling.onHandled = { [unowned metricsWriter, unowned conditions, unowned runs = self.runs,
                                  unowned scheduling] scheduler in
            metricsWriter.markDirty()
            conditions.wake.follow(scheduler.wakeSlot(now: scheduling.now))
            conditions.logind.follow(wantsSleepLock: scheduler.wantsSleepLock,
                                    idleRuns: scheduler.idleLockRuns.map { ($0, runs.inhibitorTitle(of: $0)) })
            conditions.setBusy(scheduler.hasWorkRunningOrDue)
            conditions.setIdleNeeded(scheduler.needsCPUIdleSignal)
        }
        conditions.logind.onSleep = { [unowned events] going in events.sleepChanged(going) }
        conditions.onChange = { [unowned conditions, unowned scheduling, unowned events] new in
            scheduling.handle(.conditionsChanged(new))
            events.conditionsChanged(conditions.inputs)
        }
    }

    /// `agentd --user`: logind removes `$XDG_RUNTIME_DIR` at logout, and the control socket with
    /// it; an agent nobody can reach any more stops as on SIGTERM (runs torn down, state written),
    /// so that the next login's agent starts clean.
    private func watchRuntimeDirectory() {
        guard options.userMode else { return }
        let directory = FileSystem.parentDirectory(of: options.socketPath)
        let name = FileSystem.baseName(of: options.socketPath)
        do {
            runtimeWatch = try DirectoryRemovalWatch(loop: loop, directory: directory, name: name) { [unowned self] in
                self.stop(because: "\(self.options.socketPath) or its directory was removed (logout)")
            }
        } catch {
            log.warning("cannot watch \(directory) (\(error)): a logout that removes it will not stop this agent")
        }
    }

    private func handle(signal: Int32) {
        switch signal {
        case SIGHUP:
            log.info("SIGHUP: rescanning \(options.configDirectory) and re-reading power, thermal, network and pressure")
            config.rescanAll()
            conditions.rereadEverything()
            stateWriter.retry()
            // Everything was re-read: render the metrics again (rewritten only if they changed).
            metricsWriter.markDirty()
        default:
            stop(because: "signal \(signal)")
        }
    }

    /// SIGTERM, SIGINT, or the per-user agent's runtime directory removed (logout): live runs
    /// get their teardown, nothing new starts; asked again, stops without waiting for them.
    private func stop(because cause: String) {
        guard !isStopping else {
            log.notice("\(cause) again: stopping without waiting for runs")
            loop.stop()
            return
        }
        isStopping = true
        service.stopping()
        log.info("\(cause): stopping")
        events.agentStopping()
        // Before the teardown: a run's end must not free a slot for queued work.
        scheduling.handle(.agentStopping)
        if runs.isIdle {
            loop.stop()
        } else {
            // Live runs get the usual SIGTERM, grace period, SIGKILL; the loop ends when the
            // last one has gone and its result is recorded.
            runs.onIdle = { [unowned self] in self.loop.stop() }
            runs.stopAll()
        }
    }

    /// Nothing due within this long: an idle agent's memory goes back to the kernel.
    static let trimHorizon: Duration = .seconds(60)
    private var trimRefusalLogged = false

    /// A minute without a write, no run live, nothing due within `trimHorizon`: the pages that
    /// start-up touched go back to the kernel (IdleMemoryTrim), as Windows trims an idle
    /// process's working set. What the next wake needs is read back then.
    private func trimMemoryIfIdle() {
        guard runs.isIdle, !isStopping else { return }
        if let next = scheduling.untilNextDecision, next < Self.trimHorizon { return }
        let outcome = IdleMemoryTrim.trim()
        if options.benchProbes { log.info("idle trim: \(outcome.advisedBytes / 1024) KiB of read-only mappings advised") }
        if let refusal = outcome.refusal, !trimRefusalLogged {
            trimRefusalLogged = true
            log.info("idle: the kernel keeps the agent's code pages resident (\(refusal)); nothing else changes")
        }
    }

    /// Keep-alives at half the interval systemd asked for; no timer at all otherwise.
    private func startWatchdog() {
        guard let interval = service.watchdogInterval else { return }
        loop.schedule(after: interval) { [unowned self] in
            self.service.watchdog()
            self.startWatchdog()
        }
    }

    // MARK: state

    /// Opens the state database if it is not open; retried by the state writer's timer (and
    /// SIGHUP) until it is. Returns whether it is open.
    @discardableResult
    private func openState() -> Bool {
        let wasOpen = state.database != nil
        if state.open() {
            stateWriter.databaseOpened()
            watchWAL()
            if !wasOpen {
                // First time the database is usable: account for runs of an earlier agent, and
                // take up what it kept when this agent started without it.
                if let highest = runs.recoverUnfinishedRuns() { scheduling.numberRuns(after: highest) }
                historyPruner.databaseOpened()
                if scheduling.isStarted {
                    scheduling.stateOpenedLate()
                    log.notice("state database \(state.path)/state.db is open")
                }
            }
            return true
        }
        stateWriter.reportOnce(state.problem ?? "state directory unusable")
        stateWriter.scheduleRetry()
        return false
    }

    /// The state directory's watch for its WAL's name (issue 28 item 12); the state writer's
    /// thread checks that the name still leads to the open WAL and repairs it when not.
    private func watchWAL() {
        guard walWatch == nil else { return }
        do {
            walWatch = try DirectoryRemovalWatch(loop: loop, directory: state.path, name: "state.db-wal",
                                                 repeating: true) { [unowned stateWriter] in
                stateWriter.checkWAL()
            }
            // state.db itself: written again from the open connection (StateCommitting.checkWAL).
            databaseWatch = try DirectoryRemovalWatch(loop: loop, directory: state.path, name: "state.db",
                                                      repeating: true) { [unowned stateWriter] in
                stateWriter.checkWAL()
            }
        } catch {
            log.warning("cannot watch \(state.path) (\(error)): a removed state.db or state.db-wal is noticed only at the next write")
        }
    }

    // MARK: control socket

    private func openControlSocket() throws -> ControlServer {
        let directory = FileSystem.parentDirectory(of: options.socketPath)
        try FileSystem.makeDirectories(directory, mode: 0o755)
        // The per-user agent's socket is its user's alone (DESIGN §2): no group to look up.
        let group = options.userMode ? nil : GroupMembership.lookup("agentd")?.gid
        var handler = ControlHandler(catalogue: config, scheduling: scheduling, runs: runs, conditions: conditions,
                                     state: state, stateWriter: stateWriter, events: events, metrics: metrics,
                                     loop: loop, about: facts)
        handler.metricsFileProblem = { [unowned metricsWriter] in metricsWriter.problem }
        let ready = handler
        // DESIGN §9: every local user reads the system agent (per-uid limits bound them; what
        // they see of a job is redacted for them); the per-user agent is its user's alone.
        return try ControlServer(loop: loop, path: options.socketPath, mode: options.userMode ? 0o600 : 0o666,
                                 group: group) { request in
            ready.handle(request)
        }
    }
}
