// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore
import AgentSystem
import Glibc

/// The running agent: one event loop, and the adapters wired to it — config watcher (through a
/// mailbox), signals, control socket, state directory. Everything here runs on the loop's thread.
public final class Agent {
    let options: DaemonOptions
    let loop: EventLoop
    let log: Logger
    var config: ConfigLoader
    let state: StateDirectory
    /// Every write to the state database, with its queue, retries and checkpoints.
    let stateWriter: StateWriter
    let startedAtWall: Int64
    let startedAt: MonotonicInstant
    private var watcher: ConfigWatcher?
    /// The directories of plugins named in config errors (`Agent+PluginWatch.swift`).
    var pluginWatch: PluginDirectoryWatch?
    private var signals: SignalSource?
    private var server: ControlServer?
    private var configEvents: Mailbox<ConfigWatchEvent>?
    /// Removals reported by the watcher, applied once the config directory is quiet.
    private var pendingRemovals = PendingConfigRemovals()
    private var removalTimer: TimerToken?
    /// The watcher's health as last logged, to log each change once.
    private var loggedWatchHealth: ConfigWatchHealth?
    private(set) var runs: RunSupervisor!
    private(set) var scheduling: SchedulerDriver?
    /// Power, thermal, network and pressure (DESIGN §6).
    private(set) var conditions: ConditionMonitor!
    /// Set once SIGTERM/SIGINT arrived: live runs are being stopped, nothing new starts.
    private(set) var isStopping = false
    private var lastStoreError: String?
    let service = ServiceNotifier()
    /// What happened, for `subscribe`d connections (`agentctl events`, `submit --wait`, `watch`).
    let events: EventBus
    /// Waiting requests as last counted (by `status`, or by the service-status refresh): counting
    /// walks every job, so it is not done on every run start and end.
    var waitingCount = 0
    private var serviceStatusRefresh: TimerToken?
    private var lastServiceStatus = ""
    /// Runs ended and run durations since the start, for `agentctl metrics` and `MetricsFile=`.
    var runMetrics = RunMetrics()
    /// Last successes and recent success starts, for the per-job metrics.
    var successHistory = SuccessHistory()
    /// Keeps `MetricsFile=` current (no timer while nothing changed).
    private(set) lazy var metricsWriter = MetricsFileWriter(agent: self)

    /// The state database's run records, when the state directory is usable.
    var runStore: RunStore? { state.database.map(RunStore.init) }

    public init(options: DaemonOptions) throws {
        self.options = options
        self.log = Logger(timestamps: options.logTimestamps, journal: Logger.stderrIsJournal(
            journalStream: getenv("JOURNAL_STREAM").map { String(cString: $0) }))
        self.loop = try EventLoop()
        let user = SystemFactsProbe.currentUser()
        self.config = ConfigLoader(configDirectory: options.configDirectory, agentUID: user.uid,
                                   agentUserName: user.name, privileged: geteuid() == 0)
        config.dataDirectories = options.dataDirectories
        self.state = StateDirectory(path: options.stateDirectory)
        self.stateWriter = StateWriter(state: state, loop: loop, log: log)
        self.events = EventBus(loop: loop)
        self.startedAtWall = loop.clock.realtime / 1_000_000_000
        self.startedAt = loop.clock.monotonic
    }

    /// Starts every adapter and runs the loop until SIGTERM or SIGINT.
    public func run() throws {
        log.info("agentd \(AgentVersion.string) starting (pid \(getpid()), config \(options.configDirectory), state \(options.stateDirectory))")
        prepareUserMode()
        signals = try SignalSource(loop: loop, signals: [SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
            self.handle(signal: signal)
        }
        try SignalSource.ignore(SIGPIPE)
        runs = RunSupervisor(agent: self)
        stateWriter.reopen = { [unowned self] in self.openState() }
        if !openState() {
            // Run numbers continue from the database; until it can be read, from the clock.
            runs.numberRunsFromClock()
        }
        // Watch before the first scan so nothing written meanwhile is missed.
        try startWatcher()
        startPluginWatch()
        logChanges(config.loadAll())
        let driver = SchedulerDriver(agent: self)
        // Events first: what the scheduler does next (the queued run it starts) comes after.
        let events = self.events
        runs.onRunStarted = { [unowned driver] job, run, reason in
            events.runStarted(job: job, run: run, reason: reason)
            driver.handle(.runStarted(job, run, reason: reason))
        }
        runs.onRunEnded = { [unowned driver] job, run, stop in
            events.runEnded(job: job, run: run, stop: stop)
            driver.handle(.runEnded(job, run, stop))
        }
        runs.onRunProgress = { [unowned driver] run, fraction in driver.handle(.runProgress(run, fraction)) }
        runs.onRunDirective = { run, directive in events.runDirective(run, directive) }
        scheduling = driver
        startDesktopNotifications()
        let monitor = ConditionMonitor(agent: self)
        monitor.onChange = { [unowned driver, unowned monitor] new in
            driver.handle(.conditionsChanged(new))
            events.conditionsChanged(monitor.inputs)
        }
        conditions = monitor
        // Inputs first, so the first decisions see the machine as it is.
        monitor.start()
        driver.start()
        server = try openControlSocket()
        log.notice("ready: \(Self.count(config.registry.manifestCount, "manifest")), \(Self.count(config.registry.jobCount, "job")), \(Self.count(errorCount, "config error")); socket \(options.socketPath)")
        service.ready(status: serviceStatus)
        lastServiceStatus = serviceStatus
        startWatchdog()
        loop.run()
        stateWriter.shutdown()
        server?.close()
        log.info("agentd stopped")
    }

    /// `1 job`, `2 jobs`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    private var errorCount: Int {
        config.registry.diagnostics.filter { $0.severity == .error }.count
    }

    private func handle(signal: Int32) {
        switch signal {
        case SIGHUP:
            log.info("SIGHUP: rescanning \(options.configDirectory) and re-reading power, thermal, network and pressure")
            // Re-watch whatever was replaced or came back; the watcher rescans what it re-arms.
            watcher?.rearm()
            pendingRemovals.removeAll()
            logChanges(config.loadAll())
            conditions?.rereadEverything()
            stateWriter.retry()
            // Everything was re-read: render the metrics again (rewritten only if they changed).
            metricsWriter.markDirty()
        default:
            guard !isStopping else {
                log.notice("signal \(signal) again: stopping without waiting for runs")
                loop.stop()
                return
            }
            isStopping = true
            service.stopping()
            log.info("signal \(signal): stopping")
            events.agentStopping()
            // Before the teardown: a run's end must not free a slot for queued work.
            scheduling?.handle(.agentStopping)
            if runs.isIdle {
                loop.stop()
            } else {
                // Live runs get the usual SIGTERM, grace period, SIGKILL; the loop ends when the
                // last one has gone and its result is recorded.
                runs.onIdle = { [unowned self] in self.loop.stop() }
                runs.stopAll()
            }
        }
    }

    /// The one-line summary systemd shows (`systemctl status agentd`).
    var serviceStatus: String {
        let running = runs?.liveRuns.count ?? 0
        var text = "\(Self.count(config.registry.jobCount, "job")) loaded, \(running) running, \(waitingCount) waiting"
        if errorCount > 0 { text += ", \(Self.count(errorCount, "config error"))" }
        if state.problem != nil { text += ", state directory unusable" }
        return text
    }

    /// Sends STATUS= when the summary changed (called after config changes and run ends).
    func updateServiceStatus() {
        // Recount the waiting requests at most once a second, and only under a service manager.
        if service.isUnderServiceManager, serviceStatusRefresh == nil, let driver = scheduling {
            serviceStatusRefresh = loop.schedule(after: .seconds(1)) { [unowned self] in
                self.serviceStatusRefresh = nil
                self.waitingCount = driver.scheduler.waitingSummary(now: driver.now, limit: 0).total
                self.sendServiceStatus()
            }
        }
        sendServiceStatus()
    }

    private func sendServiceStatus() {
        let text = serviceStatus
        guard text != lastServiceStatus else { return }
        lastServiceStatus = text
        service.status(text)
    }

    /// Keep-alives at half the interval systemd asked for; no timer at all otherwise.
    private func startWatchdog() {
        guard let interval = service.watchdogInterval else { return }
        loop.schedule(after: interval) { [unowned self] in
            self.service.watchdog()
            self.startWatchdog()
        }
    }

    /// A state database operation failed: a write that may succeed later is the state
    /// writer's to retry; anything else is said once per distinct error. The agent keeps running.
    func storeFailed(_ error: any Error) {
        if let error = error as? StoreError, error.kind.isTransient {
            stateWriter.failed(error)
            return
        }
        let message = "state database: \(error) (check the state directory's permissions and free space)"
        if message != lastStoreError {
            log.error(message)
            lastStoreError = message
        }
    }

    // MARK: state

    /// Opens the state database if it is not open; retried by the state writer's timer (and
    /// SIGHUP) until it is. Returns whether it is open.
    @discardableResult
    private func openState() -> Bool {
        let wasOpen = state.database != nil
        if state.open() {
            if !wasOpen {
                // First time the database is usable: account for runs of an earlier agent, and
                // take up what it kept when this agent started without it.
                runs.recoverUnfinishedRuns()
                scheduling?.stateOpenedLate()
                if scheduling != nil { log.notice("state database \(state.path)/state.db is open") }
            }
            return true
        }
        let problem = state.problem ?? "state directory unusable"
        if problem != lastStoreError {
            log.error(problem)
            lastStoreError = problem
        }
        stateWriter.scheduleRetry()
        return false
    }

    // MARK: config

    private func startWatcher() throws {
        let mailbox = try Mailbox<ConfigWatchEvent>(loop: loop) { [unowned self] batch in
            self.handle(configEvents: batch)
        }
        configEvents = mailbox
        let watcher = ConfigWatcher(configDirectory: options.configDirectory)
        let sender = mailbox.sender
        try watcher.start { batch in sender.post(contentsOf: batch) }
        self.watcher = watcher
        logWatchHealth()
    }

    func handle(configEvents batch: [ConfigWatchEvent]) {
        var changes: [RegistryChange] = []
        for event in Self.coalesce(batch) {
            switch event {
            case .changed(let path):
                pendingRemovals.cancel(path)
                changes.append(config.reload(relativePath: path))
            case .removed(let path):
                // Not yet: `rm -rf` of a directory about to be replaced deletes its files first.
                pendingRemovals.add(path)
            case .rescan(let directory):
                var vanished: [String] = []
                changes.append(contentsOf: config.rescan(directory: directory, vanished: &vanished))
                vanished.forEach { pendingRemovals.add($0) }
            case .overflow:
                log.warning("inotify queue overflowed: rescanning \(options.configDirectory)")
                var vanished: [String] = []
                changes.append(contentsOf: config.loadAll(vanished: &vanished))
                vanished.forEach { pendingRemovals.add($0) }
            }
        }
        logChanges(changes)
        if !pendingRemovals.isEmpty { settleRemovals() }
        logWatchHealth()
    }

    /// Says when a config directory goes missing or the watches are whole again.
    private func logWatchHealth() {
        guard let health = watcher?.health, health != loggedWatchHealth else { return }
        let first = loggedWatchHealth == nil
        loggedWatchHealth = health
        if !health.missing.isEmpty {
            log.warning("config watch: \(health.missing.joined(separator: ", ")) missing; the config "
                + "last read there stays in force until it is back")
        } else if !first {
            log.info("config watch: watching \(health.watchedDirectories) "
                + "\(health.watchedDirectories == 1 ? "directory" : "directories") again")
        }
    }

    /// (Re)starts the quiet period after which the pending removals take effect: each removal
    /// is checked again then, and one whose directory has gone meanwhile waits for the
    /// directory to come back (`ConfigLoader`).
    private func settleRemovals() {
        if let token = removalTimer { loop.cancel(token) }
        removalTimer = loop.schedule(after: PendingConfigRemovals.quietPeriod) { [unowned self] in
            self.removalTimer = nil
            let paths = self.pendingRemovals.takeAll()
            self.logChanges(paths.map { self.config.reload(relativePath: $0) })
        }
    }

    /// The watcher's health for `status`.
    var configWatchStatus: ConfigWatchStatus? {
        guard let health = watcher?.health else { return nil }
        return ConfigWatchStatus(watching: health.watchedDirectories, missing: health.missing)
    }

    /// Within one batch only the last event per path matters (a burst of writes is one reload).
    static func coalesce(_ batch: [ConfigWatchEvent]) -> [ConfigWatchEvent] {
        var lastIndex: [ConfigWatchEvent: Int] = [:]
        var lastForPath: [String: Int] = [:]
        for (index, event) in batch.enumerated() {
            switch event {
            case .changed(let path), .removed(let path): lastForPath[path] = index
            default: lastIndex[event] = index
            }
        }
        return batch.enumerated().compactMap { index, event in
            switch event {
            case .changed(let path), .removed(let path): return lastForPath[path] == index ? event : nil
            default: return lastIndex[event] == index ? event : nil
            }
        }
    }

    func logChanges(_ changes: [RegistryChange]) {
        events.configChanged(changes)
        defer {
            if !changes.isEmpty {
                watchPluginsNamedInErrors()
                if changes.contains(where: { $0.settingsChanged }) {
                    scheduling?.settingsChanged()
                    conditions?.settingsChanged()
                }
                scheduling?.jobsUpdated(changes)
                updateServiceStatus()
            }
        }
        for change in changes {
            for id in change.added { log.info("registered \(id) from \(source(of: id))") }
            for id in change.updated { log.info("updated \(id) from \(source(of: id))") }
            for id in change.removed { log.info("removed \(id)") }
            for diagnostic in change.diagnostics {
                if diagnostic.severity == .error { log.error(diagnostic.description, fields: LogFields(.configError)) }
                else { log.warning(diagnostic.description) }
            }
        }
    }

    private func source(of id: Identifier) -> String {
        guard let job = config.registry.job(id) else { return "?" }
        switch job.state {
        case .registered: return job.sourcePath
        case .notPermitted(let reason): return "\(job.sourcePath) (\(reason))"
        case .duplicate(let other): return "\(job.sourcePath) (duplicate of \(other))"
        }
    }

    // MARK: control socket

    private func openControlSocket() throws -> ControlServer {
        let directory = FileSystem.parentDirectory(of: options.socketPath)
        try FileSystem.makeDirectories(directory, mode: 0o755)
        let group = getgrnam("agentd")?.pointee.gr_gid
        let handler = ControlHandler(agent: self)
        // The per-user agent's socket is its user's alone (DESIGN §2).
        return try ControlServer(loop: loop, path: options.socketPath, mode: options.userMode ? 0o600 : 0o660,
                                 group: options.userMode ? nil : group) { request in
            handler.handle(request)
        }
    }
}
