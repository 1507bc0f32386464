// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentJSON
import AgentProtocol
import AgentStore
import AgentSystem
import Glibc

/// Drives the pure `Scheduler` from the event loop: feeds it config changes, run starts and ends,
/// requests and the passing of time (one timer at its `nextDeadline`, none when nothing is due),
/// and carries out what it decides — launches, replies, persistence.
final class SchedulerDriver {
    private let loop: any EventLooping
    private let log: Logger
    private let catalogue: JobCatalogue
    private let state: StateDirectory
    private let stateWriter: StateWriter
    private let events: EventBus
    /// Carries out launches and what the scheduler decides about live runs.
    private let runs: RunSupervisor
    /// Benchmarks read how long each decision took.
    private let logsDecisionTimes: Bool
    /// logind's `InhibitDelayMaxUSec`: runs expired before sleep get a grace period that fits it.
    var inhibitDelayMax: () -> Duration = { LogindMonitor.defaultInhibitDelay }
    /// After every event, with the scheduler as it now is (metrics, the inputs' sampling).
    var onHandled: ((Scheduler) -> Void)?
    /// Called before each decision but a change of conditions: refreshes sampled inputs.
    var beforeDecision: (() -> Void)?
    private(set) var scheduler: Scheduler
    private var timer: TimerToken?
    private var replies: [Int64: SubmitReply] = [:]
    /// Runs started for `.launchNow` requests, read back by `launchNow` in the same event.
    private var launchedNow: [Int64: RunID] = [:]
    private var nextRequestID: Int64 = 0
    private var persistTimer: TimerToken?
    private var unsavedGlobals: PersistedSchedule?
    private var unsavedRows: [Identifier: IdentifierSchedule] = [:]
    /// What of the unsaved state a failed write gave back (older than any change made since).
    private var globalsTakenBack = false
    private var rowsTakenBack: Set<Identifier> = []
    /// Clock steps, time-zone and daylight-saving changes, suspends.
    private let time: LocalTimeFollower

    /// `seed` spreads catch-up runs; `offsetRule` and `machineID` are the machine's (the core
    /// reads neither itself).
    init(loop: any EventLooping, log: Logger, catalogue: JobCatalogue, state: StateDirectory, stateWriter: StateWriter,
         events: EventBus, runs: RunSupervisor, time: LocalTimeFollower, seed: UInt64,
         offsetRule: (any UTCOffsetRule)?, machineID: String, logsDecisionTimes: Bool) {
        self.loop = loop
        self.log = log
        self.catalogue = catalogue
        self.state = state
        self.stateWriter = stateWriter
        self.events = events
        self.runs = runs
        self.logsDecisionTimes = logsDecisionTimes
        self.time = time
        scheduler = Scheduler(settings: catalogue.settings, calendar: time.calendar, seed: seed,
                              offsetRule: offsetRule, machineID: machineID)
        // AfterBoot= counts from the boot: the wall time CLOCK_BOOTTIME started from.
        let clock = loop.clock
        scheduler.bootedAt = SchedulerTime(seconds: clock.realtimeSeconds - Double(clock.boottime) / 1_000_000_000)
        time.send = { [unowned self] event in self.handle(event) }
        time.clockMoved = { [unowned self] in self.rearm() }
        stateWriter.flushers.append { [unowned self] in self.flush(durable: true) }
    }

    /// The wall clock of this loop iteration: every decision and answer of one iteration uses
    /// the same "now".
    var now: SchedulerTime { SchedulerTime(seconds: loop.clock.realtimeSeconds) }

    /// New runs are numbered after `highest`, the highest run number the state database holds.
    func numberRuns(after highest: UInt64) {
        scheduler.numberRuns(after: highest)
    }

    /// The state database cannot be read at start: run numbers continue from the clock (seconds
    /// since the epoch), which no number it holds can reach once it can be read.
    func numberRunsFromClock() {
        scheduler.numberRuns(after: UInt64(max(0, loop.clock.realtime / 1_000_000_000)))
    }

    /// Set by `start`: from then on, the scheduler has the registry and the saved state.
    private(set) var isStarted = false

    /// Restores what the database kept, then hands over the registered jobs.
    func start() {
        isStarted = true
        // Start-up is one long iteration zero (the config was just loaded): read the clocks anew.
        loop.refreshClock()
        time.start()
        if let snapshot = loadSnapshot() {
            restore(snapshot)
        }
        handle(.settingsChanged(catalogue.settings))
        handle(.budgetsChanged(catalogue.registry.budgetAccounts))
        jobsChanged()
    }

    func jobsChanged() {
        handle(.jobsChanged(catalogue.registeredDefinitions))
    }

    /// One reload's worth of job changes.
    func jobsUpdated(_ changes: [RegistryChange]) {
        // A manifest changed: whose budget each job spends, and the limits, apply at once.
        if changes.contains(where: \.permissionsChanged) {
            handle(.budgetsChanged(catalogue.registry.budgetAccounts))
        }
        var changed: [JobDefinition] = []
        var removed: [Identifier] = []
        for change in changes {
            for id in change.added + change.updated {
                if let job = catalogue.registeredDefinition(id) {
                    changed.append(job)
                } else {
                    removed.append(id)
                }
            }
            removed.append(contentsOf: change.removed.filter { catalogue.registeredDefinition($0) == nil })
        }
        guard !changed.isEmpty || !removed.isEmpty else { return }
        handle(.jobsUpdated(changed: changed, removed: removed))
    }

    func settingsChanged() {
        handle(.settingsChanged(catalogue.settings))
    }

    func handle(_ event: SchedulerEvent) {
        // Inputs that are sampled rather than followed are brought up to date before a decision
        // that may launch (a change is handled first, as its own event).
        switch event {
        case .conditionsChanged, .runProgress, .runStarted: break
        default: beforeDecision?()
        }
        time.beforeEvent(event)
        let started = logsDecisionTimes ? MonotonicInstant.now() : nil
        let actions = scheduler.handle(event, now: now)
        if let started {
            // Benchmarks read how long each decision took.
            let took = started.duration(to: MonotonicInstant.now())
            log.info("scheduler: \(Self.name(of: event)) decided in \(took.components.seconds * 1_000_000 + took.components.attoseconds / 1_000_000_000_000) us (\(actions.count) actions)")
        }
        perform(actions)
        if events.followsQueuedSubmissions {
            let scheduler = self.scheduler
            events.queuedSubmissionsChecked { scheduler.isQueued(requestID: $0) }
        }
        rearm()
        onHandled?(scheduler)
    }

    static func name(of event: SchedulerEvent) -> String {
        switch event {
        case .jobsChanged(let jobs): return "jobs-changed(\(jobs.count))"
        case .jobsUpdated(let changed, let removed): return "jobs-updated(\(changed.count + removed.count))"
        case .settingsChanged: return "settings-changed"
        case .budgetsChanged: return "budgets-changed"
        case .tick: return "tick"
        case .agentStopping: return "agent-stopping"
        case .runStarted: return "run-started"
        case .runEnded: return "run-ended"
        case .trigger: return "trigger"
        case .submit: return "submit"
        case .launchNow: return "launch-now"
        case .cancelPending: return "cancel-pending"
        case .request: return "request"
        case .setEnabled: return "set-enabled"
        case .setPaused: return "set-paused"
        case .restored: return "restored"
        case .resumedAfterDowntime: return "resumed-after-downtime"
        case .calendarChanged: return "calendar-changed"
        case .clockStepped: return "clock-stepped"
        case .runProgress: return "run-progress"
        case .conditionsChanged: return "conditions-changed"
        }
    }

    // MARK: requests from agentctl

    /// `simulate launch` and `run-if-stale`: the scheduler decides (one launcher); the answer
    /// is the new run, or why not.
    func launchNow(_ id: Identifier, reason: RunReason) -> Result<RunID, SubmitRefusal> {
        nextRequestID += 1
        let request = nextRequestID
        var outcome: SubmitOutcome?
        // The run starts whether or not its record can be written now (it is queued).
        replies[request] = SubmitReply(decided: { outcome = $0 }, unwritable: { _ in outcome = .accepted(position: 0) })
        handle(.launchNow(id, reason: reason, requestID: request))
        replies[request] = nil
        let run = launchedNow.removeValue(forKey: request)
        switch (outcome, run) {
        case (.accepted?, let run?): return .success(run)
        case (.refused(let why)?, _): return .failure(why)
        default: return .failure(.notPermitted)
        }
    }

    /// A submission is decided only when the state can be written, and answered `accepted`
    /// only once it is durable; otherwise `unwritable` gets the reason (DESIGN §10).
    /// Both answers get the submission's request number (its events carry it).
    func submit(_ submission: Submission, reply: @escaping (SubmitOutcome, Int64) -> Void,
                unwritable: @escaping (StateRefusal) -> Void) {
        do {
            try stateWriter.ensureWritable()
        } catch {
            unwritable(error)
            return
        }
        nextRequestID += 1
        var request = submission
        let requestID = nextRequestID
        request.requestID = requestID
        let events = events
        let identifier = submission.identifier
        replies[nextRequestID] = SubmitReply(decided: { outcome in
            events.submissionDecided(identifier, requestID: requestID, outcome)
            reply(outcome, requestID)
        }, unwritable: { why in
            events.submissionUnwritable(identifier, requestID: requestID, why)
            unwritable(why)
        })
        handle(.submit(request))
        // The scheduler answers every submission; should it not, the client still gets one.
        if let pending = replies.removeValue(forKey: nextRequestID) {
            answer(pending, .accepted(position: 0))
        }
    }

    /// `request`: decided at once, answered by the scheduler after the write that makes it
    /// durable, or why the state cannot record it.
    func requestRun(_ id: Identifier, _ asked: RunRequest) -> RequestAnswer {
        do { try stateWriter.ensureWritable() } catch { return .unwritable(error) }
        nextRequestID += 1
        let requestID = nextRequestID
        var answer = RequestAnswer.decided(.refused(.notPermitted))
        replies[requestID] = SubmitReply(decided: { answer = .decided($0) }, unwritable: { answer = .unwritable($0) })
        handle(.request(id, asked, requestID: requestID))
        replies[requestID] = nil
        return answer
    }

    /// A person's request that changes persisted state (trigger, enable, disable, pause,
    /// resume): refused while the state cannot be written, else handled and written at once.
    /// Returns once its change is handed to the writer; throws why it was not accepted, or
    /// that its write failed.
    func request(_ event: SchedulerEvent) throws(StateRefusal) {
        try stateWriter.ensureWritable()
        handle(event)
        if let problem = stateWriter.problem { throw .heldInMemory(problem) }
    }

    private func answer(_ reply: SubmitReply, _ outcome: SubmitOutcome) {
        if outcome.isAccepted, let problem = stateWriter.problem {
            reply.unwritable(.heldInMemory(problem))
        } else {
            reply.decided(outcome)
        }
    }

    // MARK: actions

    private func perform(_ actions: [SchedulerAction]) {
        for action in actions {
            switch action {
            case .launch(let order):
                events.willLaunch(order)
                runs.launch(order)
                if let request = order.requestID { launchedNow[request] = order.run }
            case .reply(let requestID, let outcome):
                if let reply = replies.removeValue(forKey: requestID) { answer(reply, outcome) }
            case .persist(let changes, let cadence):
                persist(changes, cadence)
            case .log(let text):
                log.info(text)
            case .expire(let run, .sleep):
                runs.expire(run, reason: .sleep, graceAtMost: SleepPolicy.graceLimit(inhibitDelayMax: inhibitDelayMax()))
            case .expire(let run, let reason):
                runs.expire(run, reason: reason)
            case .freeze(let run, let hold):
                runs.freeze(run, because: hold.description)
            case .thaw(let run):
                runs.thaw(run)
            case .setCPUWeight(let run, let lowered):
                runs.setLowPriority(run, lowered)
            }
        }
    }


    /// How long until the scheduler next decides something; nil when nothing is due.
    var untilNextDecision: Duration? {
        scheduler.nextDeadline.map { $0.duration(since: now) }
    }

    /// One timer at the scheduler's next deadline; none when nothing is due. The wall-clock
    /// deadline becomes a monotonic delay, so a clock step re-arms it (`clockStepped`).
    private func rearm() {
        if let token = timer { loop.cancel(token); timer = nil }
        guard let deadline = scheduler.nextDeadline else { return }
        let delay = deadline.duration(since: now)
        timer = loop.schedule(after: max(.zero, delay)) { [unowned self] in
            self.timer = nil
            self.handle(.tick)
        }
    }

    // MARK: persistence

    /// Collects the scheduler's changes and writes them at the cadence it decided: `.now` is
    /// written at once and synced before the event's replies (nothing acknowledged is lost
    /// even to a power cut: the sync runs off the loop and the reply waits for it, see
    /// AcknowledgementSync), `.batched` within a second. What cannot be written stays here
    /// until a later flush succeeds.
    private func persist(_ changes: ScheduleChanges, _ cadence: PersistCadence) {
        unsavedGlobals = changes.globals
        unsavedRows.merge(changes.records) { _, new in new }
        globalsTakenBack = false
        rowsTakenBack.subtract(changes.records.keys)
        if cadence == .now {
            if flush() { stateWriter.syncRequestCommit() }
        } else if persistTimer == nil {
            persistTimer = loop.schedule(after: .seconds(1), leeway: .quarterSecond) { [unowned self] in
                self.persistTimer = nil
                self.flush()
            }
        }
    }

    /// Writes what changed since the last write, in one transaction (also at shutdown and from
    /// the state writer's retries). Returns whether nothing is left unsaved.
    @discardableResult
    func flush(durable: Bool = false) -> Bool {
        guard let globals = unsavedGlobals else { return true }
        let json: String
        let rows: [(identifier: String, state: String?)]
        do {
            let encoder = JSONLineEncoder()
            json = String(decoding: try encoder.encode(globals.globalsOnly), as: UTF8.self)
            rows = try unsavedRows.map { id, record -> (identifier: String, state: String?) in
                (id.rawValue, record.isEmpty ? nil : String(decoding: try encoder.encode(record), as: UTF8.self))
            }
        } catch {
            log.error("state database: the scheduler's state cannot be encoded: \(error)")
            return false
        }
        let at = loop.clock.realtimeMilliseconds
        let handed = (globals: globals, rows: unsavedRows)
        let takenBack = (globals: globalsTakenBack, rows: rowsTakenBack)
        // Cleared before the handover: a writer that runs the job at once (at the stop) may
        // give it back before `attempt` returns.
        unsavedGlobals = nil
        unsavedRows = [:]
        globalsTakenBack = false
        rowsTakenBack = []
        let written = stateWriter.attempt(durable: durable, { database in
            try SchedulerStateStore(database: database).write(globals: json, rows: rows, at: at)
        }, takeBack: { [unowned self] in
            // The write failed on the writer's thread: its changes are unsaved again, under
            // any change made since (failed writes give theirs back oldest first).
            if self.unsavedGlobals == nil || self.globalsTakenBack {
                self.unsavedGlobals = handed.globals
                self.globalsTakenBack = true
            }
            for (id, record) in handed.rows where self.unsavedRows[id] == nil || self.rowsTakenBack.contains(id) {
                self.unsavedRows[id] = record
                self.rowsTakenBack.insert(id)
            }
        })
        if !written {
            // Not handed over (a write is failing, or the database is not open): kept for later.
            unsavedGlobals = handed.globals
            unsavedRows = handed.rows
            globalsTakenBack = takenBack.globals
            rowsTakenBack = takenBack.rows
        }
        return written
    }

    /// The database could not be opened at start and now can: what it kept (pending requests,
    /// queued submissions, history) is restored over what this agent decided without it, so
    /// nothing acknowledged by the earlier agent is overwritten.
    func stateOpenedLate() {
        guard let snapshot = loadSnapshot() else { return } // a new database: keep what is unsaved
        unsavedGlobals = nil
        unsavedRows = [:]
        log.notice("state database opened late: restoring the saved schedule")
        restore(snapshot)
    }

    /// The saved schedule, handed to the core; request numbers go on above those of the queued
    /// submissions it holds, so no two submissions `explain` shows share one.
    private func restore(_ snapshot: PersistedSchedule) {
        nextRequestID = max(nextRequestID, snapshot.submissions.map(\.requestID).max() ?? 0)
        handle(.restored(snapshot))
    }

    /// The agent-wide document with every per-identifier row laid over it. A document written
    /// before schema 3 still carries the per-identifier maps: they are moved into rows at once.
    private func loadSnapshot() -> PersistedSchedule? {
        guard let database = state.database else { return nil }
        do {
            let store = SchedulerStateStore(database: database)
            guard let (document, storedRows) = try database.locked({ () -> (String, [(identifier: String, state: String)])? in
                guard let json = try store.load() else { return nil }
                return (json, try store.loadRows())
            }) else { return nil }
            let decoder = JSONLineDecoder()
            var snapshot = try decoder.decode(PersistedSchedule.self, from: Array(document.utf8))
            let legacy = snapshot.recordedIdentifiers
            for row in storedRows {
                guard let id = Identifier(rawValue: row.identifier),
                      let record = try? decoder.decode(IdentifierSchedule.self, from: Array(row.state.utf8))
                else {
                    log.warning("state database: schedule row \(row.identifier) cannot be read; ignored")
                    continue
                }
                snapshot.set(record, for: id)
            }
            if !legacy.isEmpty {
                unsavedGlobals = snapshot
                for id in legacy { unsavedRows[id] = snapshot.record(for: id) }
                flush()
            }
            return snapshot
        } catch {
            log.error("state database: the scheduler's saved state cannot be read (\(error)); starting without it")
            return nil
        }
    }
}

/// The answer to a `request`: the scheduler's decision, or why the state could not record it.
enum RequestAnswer {
    case decided(SubmitOutcome)
    case unwritable(StateRefusal)
}

extension SubmitOutcome {
    /// Accepted as a submission or as a request: what must be durable before it is answered.
    var isAccepted: Bool {
        switch self {
        case .accepted, .requested: true
        case .refused: false
        }
    }
}

/// Where a submission's answer goes: the scheduler's decision, or why the state could not
/// record it.
private struct SubmitReply {
    var decided: (SubmitOutcome) -> Void
    var unwritable: (StateRefusal) -> Void
}
