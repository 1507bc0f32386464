// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentStore
import AgentSystem
import Glibc

/// Every write to the state database goes through here (DESIGN §10). The loop never waits for
/// the disk: each write, sync and checkpoint is a job handed to the writer's thread
/// (``StateCommitting``: ``SQLiteWriter``), and its outcome comes back through a mailbox, in
/// handover order. What stays here, on the loop, are the durability rules: a write that cannot
/// be made (disk full, read-only, locked) is never silently lost — run records wait in a bounded
/// queue, the scheduler keeps its unsaved changes — and one timer retries with backoff until the
/// state is writable again; meanwhile `refusal` tells requests why they cannot be accepted; a
/// request is answered only once its write and its sync are done (``AcknowledgementSync``).
///
/// Checkpoints sync two files, and are timed here so they come between bursts of writes: a WAL
/// of `busyFrames` or more is checkpointed once writes have paused for `quietCheckpoint`, a
/// smaller one after `idleCheckpoint`; only a WAL that reaches `mostFrames` under writes that
/// never pause is checkpointed at once, so it stays bounded (about 40 MB with 4 KiB pages). The
/// kernel is asked to write the WAL out as it grows (``Database``), so those syncs find little to
/// do, and a checkpoint while busy restarts the WAL instead of truncating it: only the idle one
/// (and the one at stop) truncates.
final class StateWriter {
    private let state: StateDirectory
    private let loop: any EventLooping
    private let log: Logger
    /// The writer's thread (SQLite and statvfs, or virtual).
    private let commits: any StateCommitting
    private let syncs: any StateSyncing
    private var queue = UnwrittenQueue(capacity: 1_000)
    /// Why the last write failed; nil while writes succeed.
    private(set) var problem: StateProblem?
    private var retryTimer: TimerToken?
    private var retryDelay = StateWriter.firstRetry
    private var checkpointTimer: TimerToken?
    private var lastWriteAt: MonotonicInstant?
    /// The last read or open failure logged, to say each distinct one once.
    private var lastReported: String?
    /// Writers that keep their own unsaved state (the scheduler): called on each retry, each
    /// returns whether everything it had is handed over.
    var flushers: [() -> Bool] = []
    /// Called when the database is not open at a retry: opens it, returns whether it is.
    var reopen: (() -> Bool)?
    /// Requests' acknowledgements waiting for the log's sync, which runs off the loop.
    private let acknowledgements: AcknowledgementSync
    /// The last sync failed: a retry syncs again before the state counts as writable.
    private var syncFailed = false

    /// Writes handed to the writer's thread and not reported yet: what to do if they fail.
    private var handedOver: [UInt64: HandedOver] = [:]
    private struct HandedOver {
        var label: String
        var key: String?
        var body: @Sendable (Database) throws -> Void
        /// A scheduler write takes its changes back; nil for a record, which is queued.
        var takeBack: (() -> Void)?
    }
    /// Numbers the writes, in the order they are made (``UnwrittenQueue/Entry/sequence``).
    private var sequence: UInt64 = 0
    /// The queue is with the writer's thread: nothing else is handed over until it reports.
    private var draining = false
    /// Whether the drain in progress was a retry (it logs "writable again").
    private var drainIsRetry = false
    private var checkpointing = false
    private var stopping = false
    /// The connection the writer was last given.
    private weak var writerDatabase: Database?
    /// The WAL's frames, as the writer's last outcome said.
    private var walFrames = 0
    /// Reads waiting for the writes handed over before them (`afterHandedOver`), oldest first.
    private var waitingReads: [(upTo: UInt64, read: () -> Void)] = []

    /// Called when the agent has written nothing for `idleCheckpoint`: once the idle checkpoint
    /// finished with nothing written since, or that long after `watchIdleFromStart` when the
    /// agent wrote nothing at all.
    var onIdle: (() -> Void)?

    static let firstRetry: Duration = .seconds(5)
    static let longestRetry: Duration = .seconds(30)
    /// WAL checkpoint after this long without a write.
    private let idleCheckpoint: Duration
    private let limits: CheckpointLimits

    init(state: StateDirectory, loop: any EventLooping, log: Logger, commits: any StateCommitting,
         syncs: any StateSyncing, idleCheckpoint: Duration = .seconds(60),
         limits: CheckpointLimits = CheckpointLimits()) {
        self.state = state
        self.loop = loop
        self.log = log
        self.commits = commits
        self.syncs = syncs
        self.idleCheckpoint = idleCheckpoint
        self.limits = limits
        acknowledgements = AcknowledgementSync(syncs: syncs)
        acknowledgements.onOutcome = { [unowned self] failure in
            if let failure { self.recordSyncFailure(failure) }
        }
        commits.onOutcome = { [unowned self] outcomes in
            for outcome in outcomes { self.take(outcome) }
            self.releaseReads()
            self.handOverQueueIfIdle()
        }
    }

    /// When a WAL that has grown is checkpointed (see the type's comment).
    struct CheckpointLimits {
        /// SQLite's own automatic checkpoint point.
        var busyFrames = 1_000
        var quietCheckpoint: Duration = .milliseconds(250)
        var mostFrames = 10_000
    }

    var unwrittenCount: Int { queue.count }
    /// Writes handed to the writer's thread and not yet reported.
    var inFlight: Int { handedOver.count }

    /// Whether the database is open; gives the writer the connection when it is new.
    private var databaseOpen: Bool {
        guard let database = state.database else { return false }
        if writerDatabase !== database {
            writerDatabase = database
            commits.use(database, mostFrames: limits.mostFrames)
        }
        return true
    }

    /// The database was opened: the writer gets the connection now (its mailbox and wakeup
    /// descriptors are made here, before the agent is ready, not at the first write).
    func databaseOpened() {
        _ = databaseOpen
    }

    // MARK: requests

    /// Throws when a request that must be persisted cannot be accepted now: the last write
    /// failed, the database is not open, or the file system is full or read-only.
    func ensureWritable() throws(StateRefusal) {
        if let problem { throw .notAccepted(problem) }
        guard state.database != nil else {
            throw .notAccepted(state.openFailure ?? StateProblem(kind: .notWritable, directory: state.path,
                                                                 detail: "the state database is not open"))
        }
        if let full = commits.spaceProblem(of: state) {
            // status says so too, not only the refused client (until a request passes again).
            state.recordRefusal(full.refusal)
            throw .notAccepted(full)
        }
        state.recordRefusal(nil)
    }

    // MARK: acknowledgements

    /// Request commits so far: a request whose handling raised it waits for `afterSync`.
    var requestCommits: UInt64 { acknowledgements.committed }

    /// A request's change was just handed over (without a sync): the sync is asked for, queued
    /// behind it on the writer's thread.
    func syncRequestCommit() {
        guard let database = state.database else { return }
        acknowledgements.commit(database: database.path)
    }

    /// Runs `then` once every request commit so far is written and on disk, or with the
    /// refusal to send instead when the write or the sync failed.
    func afterSync(_ then: @escaping (Result<Void, StateRefusal>) -> Void) {
        acknowledgements.afterSync { [unowned self] failure in
            guard let failure else { return then(.success(())) }
            then(.failure(failure.call == "commit" ? .heldInMemory(self.problem) : .unsynced(self.problem)))
        }
    }

    private func recordSyncFailure(_ failure: SystemError) {
        if failure.call == "commit" { return } // the write's own failure was taken in before it
        syncFailed = true
        let kind: StoreErrorKind = failure.errno == ENOSPC || failure.errno == EDQUOT ? .full : .notWritable
        let new = StateProblem(kind: kind, directory: state.path, detail: failure.description)
        if new != problem { log.error("state database: \(new.refusal)") }
        problem = new
        state.recordProblem(new.refusal + waitingNote)
        scheduleRetry()
    }

    // MARK: writing

    /// Hands a write over now, in one transaction, unless a write is already failing (then it is
    /// not even tried: the retry timer will). Nothing is queued: a caller that keeps its own
    /// unsaved state (the scheduler) uses this; should the write fail, `takeBack` is called (it
    /// takes its changes back) and the caller tries again when its flusher is called.
    @discardableResult
    func attempt(_ label: String = "the schedule", durable: Bool = false,
                 _ body: @escaping @Sendable (Database) throws -> Void, takeBack: @escaping () -> Void) -> Bool {
        guard problem == nil, databaseOpen else { return false }
        sequence += 1
        handedOver[sequence] = HandedOver(label: label, key: nil, body: body, takeBack: takeBack)
        if commits.submit(.write(id: sequence, label: label, durable: durable, body: body)) { return true }
        handedOver[sequence] = nil
        return false
    }

    /// Hands a write over, or queues it when it cannot be made now; `label` names it in the log.
    func write(_ label: String, key: String? = nil, _ body: @escaping @Sendable (Database) throws -> Void) {
        sequence += 1
        if problem == nil, queue.isEmpty, !draining, databaseOpen {
            handedOver[sequence] = HandedOver(label: label, key: key, body: body, takeBack: nil)
            if commits.submit(.write(id: sequence, label: label, durable: false, body: body)) { return }
            handedOver[sequence] = nil
        }
        enqueue(UnwrittenQueue.Entry(label: label, key: key, sequence: sequence, write: body))
        // With no problem, the queue goes to the writer when it has room (its next outcome).
        if problem != nil || state.database == nil { scheduleRetry() }
    }

    /// Runs `read` once every write handed to the writer's thread so far has been reported —
    /// at once when none is in flight — so that a read of the run records sees what the agent
    /// has already said happened (a run's end, logged and published at its hand-over). Records
    /// waiting in the queue for a writable disk are not waited for: they may wait for minutes.
    func afterHandedOver(_ read: @escaping () -> Void) {
        guard let newest = handedOver.keys.max(), !stopping else { return read() }
        waitingReads.append((newest, read))
    }

    private func releaseReads() {
        guard !waitingReads.isEmpty else { return }
        let oldestInFlight = handedOver.keys.min() ?? .max
        let ready = waitingReads.prefix { $0.upTo < oldestInFlight }
        waitingReads.removeFirst(ready.count)
        for waiting in ready { waiting.read() }
    }

    private func enqueue(_ entry: UnwrittenQueue.Entry) {
        if let dropped = queue.putBack(entry) {
            log.error("state database: \(queue.capacity) records wait to be written: dropped the oldest, \(dropped.label) (\(queue.dropped) dropped since start)")
        }
    }

    // MARK: outcomes

    private func take(_ outcome: StateJobOutcome) {
        switch outcome {
        case .wrote(let id, let error, let frames):
            guard let write = handedOver.removeValue(forKey: id) else { return }
            walFrames = frames
            guard let error else {
                wrote()
                return
            }
            guard error.kind.isTransient else {
                log.error("state database: \(write.label) cannot be written and is given up: \(error)")
                return
            }
            if let takeBack = write.takeBack {
                takeBack()
            } else {
                enqueue(UnwrittenQueue.Entry(label: write.label, key: write.key, sequence: id, write: write.body))
            }
            failed(error)
        case .drained(let written, let left, let error, let abandoned, let syncFailure, let frames):
            draining = false
            walFrames = frames
            for entry in left { enqueue(entry) }
            for (label, error) in abandoned {
                log.error("state database: \(label) cannot be written and is given up: \(error)")
            }
            if let syncFailure {
                recordSyncFailure(syncFailure)
                return
            }
            syncFailed = false
            if let error {
                failed(error) // logs only when the trouble changed
                return
            }
            drained(written: written)
        case .synced:
            break // delivered to the sync port
        case .checkpointed(let truncate, let error):
            checkpointing = false
            checkpointed(truncate: truncate, error: error)
        case .walRepair(let repair):
            walRepaired(repair)
        }
    }

    /// The queue is empty again (a retry's drain, or a drain after the writer's queue was full).
    private func drained(written: Int) {
        let hadProblem = problem != nil
        let wasRetry = drainIsRetry
        drainIsRetry = false
        problem = nil
        for flusher in flushers where !flusher() {
            if problem == nil { scheduleRetry() }
            return
        }
        if written > 0 { wrote() }
        retryDelay = Self.firstRetry
        state.clearProblem()
        if hadProblem || (wasRetry && written > 0) {
            log.notice("state database: writable again; \(written) waiting records written")
        }
    }

    /// Records that wait while nothing fails (the writer's queue was full) go over once it
    /// reports.
    private func handOverQueueIfIdle() {
        guard problem == nil, !queue.isEmpty, !draining, retryTimer == nil, databaseOpen else { return }
        handOverQueue(retrying: false)
    }

    private func handOverQueue(retrying: Bool) {
        let entries = queue.takeAll()
        draining = true
        drainIsRetry = retrying
        if !commits.submit(.drain(entries: entries, syncFirst: syncFailed)) {
            draining = false
            for entry in entries { enqueue(entry) }
            scheduleRetry()
        }
    }

    /// A write failed: transient trouble makes the state unwritable until a retry succeeds;
    /// anything else is logged (the write is given up: retrying cannot help).
    func failed(_ error: any Error) {
        guard let error = error as? StoreError, error.kind.isTransient else {
            log.error("state database: \(error) (a write was given up; see the cause above)")
            return
        }
        let new = StateProblem(kind: error.kind, directory: state.path, detail: "\(error.message) (\(error.operation))")
        if new != problem {
            log.error("state database: \(new.refusal)")
        }
        problem = new
        state.recordProblem(new.refusal + waitingNote)
        scheduleRetry()
    }

    /// A state database operation failed (a read, or a write made outside this writer): a
    /// write that may succeed later is retried here; anything else is said once per distinct
    /// error. The agent keeps running.
    func report(_ error: any Error) {
        if let error = error as? StoreError, error.kind.isTransient {
            failed(error)
            return
        }
        reportOnce("state database: \(error) (check the state directory's permissions and free space)")
    }

    /// Logs `message` as an error unless it was the last one logged.
    func reportOnce(_ message: String) {
        guard message != lastReported else { return }
        log.error(message)
        lastReported = message
    }

    private var waitingNote: String {
        queue.isEmpty ? "" : "; \(queue.count) records wait to be written"
    }

    // MARK: retrying

    func scheduleRetry() {
        guard retryTimer == nil else { return }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetry)
        retryTimer = loop.schedule(after: delay, leeway: .second) { [unowned self] in
            self.retryTimer = nil
            self.retry()
        }
    }

    /// Hands over what waits: the queue in order (after the log's sync again, if the last one
    /// failed); once the writer reports it written, every flusher. A failure re-arms the timer
    /// with a longer delay.
    func retry() {
        if state.database == nil, reopen?() != true {
            scheduleRetry()
            return
        }
        guard databaseOpen, !draining else { return }
        handOverQueue(retrying: true)
    }

    // MARK: a WAL or state.db removed behind the agent's back

    /// Asks the writer whether `state.db` and `state.db-wal` on disk are still the files the
    /// connection writes (it checks after each commit by itself; this is for the state
    /// directory's watches, which saw a name go). When the WAL is not, the writer checkpoints
    /// what it holds into `state.db` and reopens the database (issue 28 item 12); when `state.db`
    /// is not, it writes the open database as a new one first. Either way a crash that follows
    /// loses nothing; `walRepaired` says so.
    func checkWAL() {
        guard databaseOpen else { return }
        _ = commits.submit(.checkWAL)
    }

    private func walRepaired(_ repair: WALRepair) {
        let wal = "\(state.path)/state.db-wal"
        switch repair {
        case .intact:
            return
        case .databaseRestored:
            let noticed = RFC3339.text(milliseconds: loop.clock.realtimeMilliseconds)
            let db = "\(state.path)/state.db"
            let note = "\(db) was removed at \(noticed) while agentd had it open; agentd wrote what it holds "
                + "(every pending request, run and ledger) as a new state.db, so nothing was lost; find out what "
                + "removes files in \(state.path) (auditctl -w \(db) -p wa)"
            // A failed attempt before this one is over: it is written again.
            state.clearProblem()
            state.recordRepair(note)
            log.warning("state database: " + note)
        case .restoreFailed(let error):
            let message = "\(state.path)/state.db was removed while agentd had it open, and it cannot be "
                + "written again: \(error); agentd goes on writing to the open file, but a restart would start "
                + "from an empty database: free the state directory (df \(state.path)) and agentd tries again at "
                + "the next write, or restore state.db from a backup before restarting agentd"
            reportOnce("state database: " + message)
            state.recordProblem(message)
        case .saveFailed(let what, let error):
            let message = "\(wal) \(what) while agentd had it open, and what it holds cannot be saved "
                + "into state.db: \(error); agentd keeps it in the open file and tries again at the next write"
            reportOnce("state database: " + message)
            state.recordProblem(message)
        case .repaired(let what):
            let noticed = RFC3339.text(milliseconds: loop.clock.realtimeMilliseconds)
            let note = "\(wal) \(what) at \(noticed) while agentd had it open; what it held was saved into "
                + "state.db and a new state.db-wal opened, so nothing was lost; find out what removes files in "
                + "\(state.path) (auditctl -w \(wal) -p wa)"
            // Reopened (on the writer's thread) before it is said: whoever reads the line finds
            // the new WAL in place.
            state.recordRepair(note)
            log.warning("state database: " + note)
        case .reopenFailed(let what, let error):
            let noticed = RFC3339.text(milliseconds: loop.clock.realtimeMilliseconds)
            // The retry timer reopens it (`reopen`); until then requests are refused.
            state.forgetDatabase()
            reportOnce("state database: \(wal) \(what) at \(noticed) while agentd had it open; what it held "
                + "was saved into state.db, but the database cannot be reopened: \(error)")
            scheduleRetry()
        }
    }

    // MARK: checkpointing

    /// Arms the checkpoint: one timer, re-armed from when it fires, none once the WAL has been
    /// checkpointed and nothing was written since; brought forward when the WAL has grown.
    private func wrote() {
        lastWriteAt = loop.now
        let frames = walFrames
        if frames >= limits.mostFrames {
            checkpoint(truncate: false)
            return
        }
        let delay = checkpointDelay(frames: frames)
        if let token = checkpointTimer {
            guard delay < idleCheckpoint, checkpointDelayArmed >= idleCheckpoint else { return }
            loop.cancel(token)
        }
        armCheckpoint(at: loop.now + delay, delay: delay)
    }

    private var checkpointDelayArmed: Duration = .zero

    private func checkpointDelay(frames: Int) -> Duration {
        frames >= limits.busyFrames ? limits.quietCheckpoint : idleCheckpoint
    }

    private func armCheckpoint(at deadline: MonotonicInstant, delay: Duration) {
        checkpointDelayArmed = delay
        // The idle checkpoint has slack; the quiet one after a burst does not.
        let leeway: TimerLeeway = delay >= .seconds(10) ? .second : .none
        checkpointTimer = loop.schedule(at: deadline, leeway: leeway) { [unowned self] in
            self.checkpointTimer = nil
            guard let last = self.lastWriteAt else { return }
            let frames = self.walFrames
            let delay = self.checkpointDelay(frames: frames)
            let due = last + delay
            if due > self.loop.now {
                self.armCheckpoint(at: due, delay: delay)
            } else {
                // A grown WAL after a pause is restarted, not truncated (writes may resume at
                // once); the idle checkpoint truncates.
                self.checkpoint(truncate: frames < self.limits.busyFrames)
            }
        }
    }

    /// At start: an agent that writes nothing has no checkpoint to wait for.
    func watchIdleFromStart() {
        loop.schedule(after: idleCheckpoint, leeway: .second) { [weak self] in
            // Nothing written, and no checkpoint either (which would follow a write): the
            // checkpoint's own notice is the one for an agent that wrote.
            guard let self, self.lastWriteAt == nil, self.checkpointHandedAt == nil else { return }
            self.onIdle?()
        }
    }

    /// When the checkpoint was handed over: a write reported after it re-arms the timer.
    private var checkpointHandedAt: MonotonicInstant?

    private func checkpoint(truncate: Bool) {
        if let token = checkpointTimer { loop.cancel(token); checkpointTimer = nil }
        guard problem == nil, databaseOpen, !checkpointing else { return }
        checkpointing = true
        checkpointHandedAt = loop.now
        if !commits.submit(.checkpoint(truncate: truncate)) {
            checkpointing = false
            armCheckpoint(at: loop.now + limits.quietCheckpoint, delay: limits.quietCheckpoint)
        }
    }

    private func checkpointed(truncate: Bool, error: StoreError?) {
        if let error {
            if stopping { log.warning("state database: checkpoint at stop failed: \(error)"); return }
            // Harmless: the WAL keeps everything; the next write re-arms the timer.
            log.info("state database: WAL checkpoint deferred: \(error)")
            return
        }
        walFrames = 0
        let writtenSince = lastWriteAt.map { at in checkpointHandedAt.map { at > $0 } ?? true } ?? false
        if writtenSince { return } // the write after it armed the timer again
        if truncate {
            lastWriteAt = nil
            onIdle?()
        } else if checkpointTimer == nil {
            // The WAL file keeps its size: truncated once writes have stopped for long.
            armCheckpoint(at: (lastWriteAt ?? loop.now) + idleCheckpoint, delay: idleCheckpoint)
        }
    }

    /// At a clean stop: what was handed over is finished (the writer's thread ends), one last
    /// try at everything unwritten (on this thread now: the loop has stopped), then a checkpoint
    /// (so `state.db` alone is a complete copy) and the close.
    func shutdown() {
        if let token = retryTimer { loop.cancel(token); retryTimer = nil }
        if let token = checkpointTimer { loop.cancel(token); checkpointTimer = nil }
        stopping = true
        commits.finish()
        // Nothing more is reported once the thread is gone: the reads go now.
        let reads = waitingReads
        waitingReads = []
        for waiting in reads { waiting.read() }
        guard state.database != nil else {
            if !queue.isEmpty { log.error("state database: not open; \(queue.count) records were never written") }
            acknowledgements.finish(database: nil)
            return
        }
        // With the thread gone, jobs run at once and report before `submit` returns.
        retry()
        if let token = retryTimer { loop.cancel(token); retryTimer = nil }
        if !queue.isEmpty {
            log.error("state database: \(queue.count) records could not be written before stopping and are lost: \(problem?.refusal ?? "")")
        }
        if let database = state.database {
            checkpointing = false
            _ = commits.submit(.checkpoint(truncate: true))
            acknowledgements.finish(database: database.path)
            database.locked { database.close() }
        }
    }
}

/// Why the state cannot be written, worded for a refused request and for `status`.
struct StateProblem: Equatable {
    var kind: StoreErrorKind
    var directory: String
    var detail: String

    /// "state directory full: …" or "state directory not writable: …", with what to do.
    var refusal: String {
        switch kind {
        case .full:
            return "state directory full: \(directory) (\(detail)); free space on that file system (df -h \(directory)), then try again. Runs that end meanwhile are kept in memory and written when space returns"
        case .locked:
            return "state directory not writable: \(directory)/state.db is locked by another process (\(detail)); agentd is its only writer, so stop that process (fuser -v \(directory)/state.db), then try again"
        case .notWritable, .permanent:
            return "state directory not writable: \(directory) (\(detail)); check that it is mounted read-write, that state.db and state.db-wal are writable (ls -l, lsattr), then try again"
        case .damaged:
            return "state database damaged: \(directory)/state.db (\(detail)); stop agentd, move state.db, state.db-wal and state.db-shm aside (keep them: sqlite3's .recover may salvage the runs), then start agentd: it begins a new state database. Runs that end meanwhile wait in memory and are lost at the stop"
        }
    }
}
