// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentStore
import AgentSystem
import Glibc

/// Every write to the state database goes through here (DESIGN §10). A write that cannot be
/// made (disk full, read-only, locked) never stalls the loop and is never silently lost: run
/// records wait in a bounded queue, the scheduler keeps its unsaved changes, and one timer
/// retries with backoff until the state is writable again. Meanwhile `refusal` tells requests
/// why they cannot be accepted. One more timer checkpoints the WAL once writes have stopped.
///
/// Checkpoints sync two files (~10–25 ms on a laptop disk) and so never run inside a write that
/// a deadline may be waiting behind: a WAL of `busyFrames` or more is checkpointed once writes
/// have paused for `quietCheckpoint` (a burst of run ends is over), a smaller one after
/// `idleCheckpoint`; only a WAL that reaches `mostFrames` under writes that never pause is
/// checkpointed at once, so it stays bounded (about 40 MB with 4 KiB pages). The kernel is
/// asked to write the WAL out as it grows (``Database``), so those syncs find little to do, and
/// a checkpoint while busy restarts the WAL instead of truncating it: only the idle one (and
/// the one at stop) truncates.
final class StateWriter {
    private let state: StateDirectory
    private let loop: any EventLooping
    private let log: Logger
    /// Transactions, the queue's drain and the space check (SQLite and statvfs, or virtual).
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
    /// returns whether everything it had is written.
    var flushers: [() -> Bool] = []
    /// Called when the database is not open at a retry: opens it, returns whether it is.
    var reopen: (() -> Bool)?
    /// Requests' acknowledgements waiting for the log's sync, which runs off the loop.
    private let acknowledgements: AcknowledgementSync
    /// The last sync failed: a retry syncs again before the state counts as writable.
    private var syncFailed = false

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
    }

    /// When a WAL that has grown is checkpointed (see the type's comment).
    struct CheckpointLimits {
        /// SQLite's own automatic checkpoint point.
        var busyFrames = 1_000
        var quietCheckpoint: Duration = .milliseconds(250)
        var mostFrames = 10_000
    }

    var unwrittenCount: Int { queue.count }

    // MARK: requests

    /// Why a request that must be persisted cannot be accepted now, or nil: the last write
    /// failed, the database is not open, or the file system is full or read-only.
    func refusal() -> String? {
        if let problem { return problem.refusal }
        guard state.database != nil else {
            return (state.openFailure ?? StateProblem(kind: .notWritable, directory: state.path,
                                                      detail: "the state database is not open")).refusal
        }
        return commits.spaceProblem(of: state)?.refusal
    }

    // MARK: acknowledgements

    /// Request commits so far: a request whose handling raised it waits for `afterSync`.
    var requestCommits: UInt64 { acknowledgements.committed }

    /// A request's change was just committed (without a sync): the sync is asked for, off the loop.
    func syncRequestCommit() {
        guard let database = state.database else { return }
        acknowledgements.commit(database: database.path)
    }

    /// Runs `then` once every request commit so far is on disk: with nil, or with the refusal to
    /// send instead when the sync failed.
    func afterSync(_ then: @escaping (String?) -> Void) {
        acknowledgements.afterSync { [unowned self] failure in
            then(failure.map { _ in (self.problem?.refusal ?? "state directory not writable") + Self.unsyncedNote })
        }
    }

    /// When the sync after a request's write failed.
    static let unsyncedNote = "; this request was written but its sync to disk failed: it is kept, but may not survive a power cut until the state can be written again"

    private func recordSyncFailure(_ failure: SystemError) {
        syncFailed = true
        let kind: StoreErrorKind = failure.errno == ENOSPC || failure.errno == EDQUOT ? .full : .notWritable
        let new = StateProblem(kind: kind, directory: state.path, detail: failure.description)
        if new != problem { log.error("state database: \(new.refusal)") }
        problem = new
        state.recordProblem(new.refusal + waitingNote)
        scheduleRetry()
    }

    // MARK: writing

    /// Writes now, in one transaction, unless a write is already failing (then it is not even
    /// tried: the retry timer will). Nothing is queued: a caller that keeps its own unsaved
    /// state (the scheduler) uses this, and tries again when its flusher is called.
    @discardableResult
    func attempt(_ label: String = "the schedule", durable: Bool = false, _ body: (Database) throws -> Void) -> Bool {
        guard problem == nil, let database = state.database else { return false }
        return run(database, label: label, durable: durable, body)
    }

    /// Writes now, or queues the write when it cannot be made; `label` names it in the log.
    func write(_ label: String, key: String? = nil, _ body: @escaping (Database) throws -> Void) {
        if problem == nil, queue.isEmpty, let database = state.database, run(database, label: label, durable: false, body) {
            return
        }
        guard problem != nil || state.database == nil else { return } // failed for good: logged
        if let dropped = queue.append(label, key: key, body) {
            log.error("state database: \(queue.capacity) records wait to be written: dropped the oldest, \(dropped.label) (\(queue.dropped) dropped since start)")
        }
        scheduleRetry()
    }

    private func run(_ database: Database, label: String, durable: Bool, _ body: (Database) throws -> Void) -> Bool {
        do {
            try commits.commit(database, durable: durable, label: label, body)
            // Before anything is acknowledged: a commit into a WAL that is no longer on disk
            // would survive no crash.
            checkWAL()
            wrote()
            return true
        } catch {
            failed(error)
            return false
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

    /// Writes what waits: the queue in order, then every flusher. Stops at the first failure
    /// (which re-arms the timer with a longer delay).
    func retry() {
        if state.database == nil, reopen?() != true {
            scheduleRetry()
            return
        }
        guard let database = state.database else { return }
        let hadProblem = problem != nil
        if syncFailed {
            // What the failed sync covered is synced again (on the loop: only after a failure).
            if let failure = syncs.syncNow(database.path) {
                recordSyncFailure(failure)
                return
            }
            syncFailed = false
        }
        let result = commits.drain(&queue, into: database) { entry, error in
            log.error("state database: \(entry.label) cannot be written and is given up: \(error)")
        }
        if let error = result.error {
            failed(error) // logs only when the trouble changed
            return
        }
        problem = nil
        for flusher in flushers where !flusher() {
            if problem == nil { scheduleRetry() }
            return
        }
        if result.written > 0 { wrote() }
        retryDelay = Self.firstRetry
        state.clearProblem()
        if hadProblem || result.written > 0 {
            log.notice("state database: writable again; \(result.written) waiting records written")
        }
    }

    // MARK: a WAL removed behind the agent's back

    /// Checks that `state.db-wal` on disk is still the WAL the connection writes (after each
    /// commit, and when the state directory's watch says the name went); when it is not, what
    /// the open WAL holds is checkpointed into `state.db` and the database reopened, so a new
    /// WAL exists on disk and a crash that follows loses nothing (issue 28 item 12).
    func checkWAL() {
        guard let database = state.database, let what = database.walDetachment() else { return }
        let wal = "\(state.path)/state.db-wal"
        guard database.databaseFileIsAttached() else {
            // Reopening would start an empty database: keep the open one, say so.
            let message = "\(state.path)/state.db was removed while agentd had it open (its WAL too); "
                + "agentd goes on writing to the open files, but a restart would start from an empty "
                + "database: restore state.db from a backup before restarting agentd"
            reportOnce("state database: " + message)
            return
        }
        do {
            try database.checkpoint(truncate: true)
        } catch {
            let message = "\(wal) \(what) while agentd had it open, and what it holds cannot be saved "
                + "into state.db: \(error); agentd keeps it in the open file and tries again at the next write"
            reportOnce("state database: " + message)
            state.recordProblem(message)
            return
        }
        let noticed = RFC3339.text(milliseconds: loop.clock.realtimeMilliseconds)
        let note = "\(wal) \(what) at \(noticed) while agentd had it open; what it held was saved into "
            + "state.db and a new state.db-wal opened, so nothing was lost; find out what removes files in "
            + "\(state.path) (auditctl -w \(wal) -p wa)"
        // Reopened before it is said: whoever reads the line finds the new WAL in place.
        if state.reopenDatabase() {
            state.recordRepair(note)
            log.warning("state database: " + note)
        } else {
            // The retry timer reopens it (`reopen`); until then requests are refused.
            reportOnce("state database: \(wal) \(what) at \(noticed) while agentd had it open; what it held "
                + "was saved into state.db, but the database cannot be reopened: \(state.problem ?? "unknown cause")")
            scheduleRetry()
        }
    }

    // MARK: checkpointing

    /// Arms the checkpoint: one timer, re-armed from when it fires, none once the WAL has been
    /// checkpointed and nothing was written since; brought forward when the WAL has grown.
    private func wrote() {
        lastWriteAt = loop.now
        let frames = state.database?.walFrames ?? 0
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
            let frames = self.state.database?.walFrames ?? 0
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

    private func checkpoint(truncate: Bool) {
        if let token = checkpointTimer { loop.cancel(token); checkpointTimer = nil }
        guard problem == nil, let database = state.database else { return }
        do {
            try database.checkpoint(truncate: truncate)
            if truncate {
                lastWriteAt = nil
            } else {
                // The WAL file keeps its size: truncated once writes have stopped for long.
                armCheckpoint(at: (lastWriteAt ?? loop.now) + idleCheckpoint, delay: idleCheckpoint)
            }
        } catch {
            // Harmless: the WAL keeps everything; the next write re-arms the timer.
            log.info("state database: WAL checkpoint deferred: \(error)")
        }
    }

    /// At a clean stop: one last try at everything unwritten, then a checkpoint (so `state.db`
    /// alone is a complete copy) and the close.
    func shutdown() {
        if let token = retryTimer { loop.cancel(token); retryTimer = nil }
        if let token = checkpointTimer { loop.cancel(token); checkpointTimer = nil }
        guard state.database != nil else {
            if !queue.isEmpty { log.error("state database: not open; \(queue.count) records were never written") }
            acknowledgements.finish(database: nil)
            return
        }
        retry()
        if let token = retryTimer { loop.cancel(token); retryTimer = nil }
        if !queue.isEmpty {
            log.error("state database: \(queue.count) records could not be written before stopping and are lost: \(problem?.refusal ?? "")")
        }
        if let database = state.database {
            do { try database.checkpoint() } catch { log.warning("state database: checkpoint at stop failed: \(error)") }
            acknowledgements.finish(database: database.path)
            database.close()
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
        }
    }
}
