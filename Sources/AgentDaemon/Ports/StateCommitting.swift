// SPDX-License-Identifier: Apache-2.0
import AgentStore
import AgentSystem

/// The state database's writer: the port between the durability rules (DESIGN §10), kept on the
/// loop by ``StateWriter``, and the thread that waits on the disk. The loop hands jobs over
/// (``submit``) and hears what came of them later (``onOutcome``), in the order it handed them
/// over. ``SQLiteWriter`` is the real one (a thread of its own); daemon scripts use one that
/// runs each job with the real SQLite when the script says, and fills the disk on cue.
protocol StateCommitting: AnyObject {
    /// Where outcomes are delivered, on the loop, in handover order.
    var onOutcome: (([StateJobOutcome]) -> Void)? { get set }
    /// The connection the jobs run on (the state database was opened, or opened again); the
    /// writer checkpoints (RESTART) by itself a WAL that reaches `mostFrames` after a write, so
    /// it stays bounded however many writes the loop hands over at once.
    func use(_ database: Database, mostFrames: Int)
    /// Hands `job` over; false when the writer's bounded queue is full (keep it, try later).
    func submit(_ job: StateJob) -> Bool
    /// Why the file system cannot take a write now (full, read-only), before trying one (a
    /// statvfs: no disk wait).
    func spaceProblem(of state: StateDirectory) -> StateProblem?
    /// At the stop, once the loop no longer runs: what was handed over is finished and its
    /// outcomes delivered before this returns; later jobs run on the caller, delivered at once.
    func finish()
}

/// One job for the writer's thread.
enum StateJob: Sendable {
    /// One transaction; `durable` syncs it at commit (`synchronous=FULL`).
    case write(id: UInt64, label: String, durable: Bool, body: @Sendable (Database) throws -> Void)
    /// The records that waited, in order, each in its own transaction; `syncFirst` syncs the log
    /// first (the last sync failed: what it covered is synced again).
    case drain(entries: [UnwrittenQueue.Entry], syncFirst: Bool)
    /// The log's sync covering request commit `upTo` and those before (after their writes: the
    /// queue is FIFO).
    case sync(upTo: UInt64)
    case checkpoint(truncate: Bool)
    /// Is `state.db-wal` on disk still the open WAL? (The directory watch saw the name go.)
    case checkWAL
}

/// What came of a job, in the order the jobs were handed over.
enum StateJobOutcome: Sendable {
    /// `error` nil: committed. `walFrames`: the WAL's frames after it.
    case wrote(id: UInt64, error: StoreError?, walFrames: Int)
    /// `left`: the entries not written (from the first transient failure, `error`), in order;
    /// `abandoned`: those given up for good.
    case drained(written: Int, left: [UnwrittenQueue.Entry], error: StoreError?,
                 abandoned: [(label: String, error: StoreError)], syncFailure: SystemError?, walFrames: Int)
    case synced(FileSyncWorker.Outcome)
    case checkpointed(truncate: Bool, error: StoreError?)
    /// The WAL's name no longer led to the open WAL; what the writer did about it.
    case walRepair(WALRepair)
}

/// What the writer found and did when `state.db-wal` (issue 28 item 12) or `state.db` itself was
/// not the open file any more.
enum WALRepair: Sendable {
    /// It is: nothing to do.
    case intact
    /// `state.db` was removed: the open database was written whole as a new one, and reopened.
    case databaseRestored
    /// `state.db` was removed, and the open database could not be written as a new one.
    case restoreFailed(error: StoreError)
    /// What the WAL held cannot be checkpointed into `state.db`.
    case saveFailed(what: String, error: StoreError)
    /// Checkpointed and reopened: a new WAL is on disk.
    case repaired(what: String)
    /// Checkpointed, but the reopen failed: the connection is closed.
    case reopenFailed(what: String, error: StoreError)
}

/// Runs jobs on the writer's thread (or, when it is unavailable, on the caller): the SQLite side
/// of each job, with what it needs to remember between jobs.
final class StateJobRunner: @unchecked Sendable {
    // Only touched by whoever runs jobs: the writer's thread, or the caller once it has finished.
    private let database: Database
    /// A transient write failure since the last drain: later writes are not tried (they come
    /// back unwritten, in order) until the state writer's retry drains again.
    private var failure: StoreError?
    /// A write failed (transiently) since the last sync or successful drain: that sync must not
    /// answer "durable".
    private var failedSinceSync: StoreError?
    /// Anything committed since the last sync: a sync with nothing new to cover is answered at once.
    private var dirty = true
    private var identity: FileSyncWorker.FileIdentity?
    private let mostFrames: Int

    init(database: Database, mostFrames: Int = 10_000) {
        self.database = database
        self.mostFrames = mostFrames
    }

    private func run(_ job: StateJob) -> StateJobOutcome {
        switch job {
        case .write(let id, let label, let durable, let body):
            if let failure { return .wrote(id: id, error: failure, walFrames: database.walFrames) }
            let error: StoreError? = database.locked {
                do {
                    try database.transaction(durable: durable) { try body(database) }
                    return nil
                } catch {
                    return Self.storeError(error, label: label, path: database.path)
                }
            }
            if let error {
                // A write that can never succeed is given up (the loop logs it); one that may
                // succeed later fails the sync behind it, so its request is not answered "done".
                if error.kind.isTransient { failure = error; failedSinceSync = error }
                return .wrote(id: id, error: error, walFrames: database.walFrames)
            }
            dirty = true
            if database.walFrames >= mostFrames {
                // Harmless when it fails: the loop's own timer checkpoints later.
                database.locked { try? database.checkpoint(truncate: false) }
            }
            let frames = database.walFrames
            if let repair = checkWAL() {
                // Before any sync or answer that follows: a commit into a WAL no longer on disk
                // would survive no crash. The repair's outcome goes first.
                pendingRepair = repair
            }
            return .wrote(id: id, error: nil, walFrames: frames)
        case .drain(let entries, let syncFirst):
            failure = nil
            var syncFailure: SystemError?
            if syncFirst {
                syncFailure = FileSyncWorker.sync(database.path, known: &identity)
                if syncFailure == nil { failedSinceSync = nil }
            }
            guard syncFailure == nil else {
                return .drained(written: 0, left: entries, error: nil, abandoned: [], syncFailure: syncFailure,
                                walFrames: database.walFrames)
            }
            var queue = UnwrittenQueue(entries: entries)
            var abandoned: [(label: String, error: StoreError)] = []
            let result = database.locked {
                queue.drain(into: database) { entry, error in abandoned.append((entry.label, error)) }
            }
            if let error = result.error {
                failure = error
                failedSinceSync = error
            } else {
                // What failed before is written now (the loop's flushers hand theirs over next).
                failedSinceSync = nil
            }
            if result.written > 0 { dirty = true }
            return .drained(written: result.written, left: queue.entries, error: result.error,
                            abandoned: abandoned, syncFailure: nil, walFrames: database.walFrames)
        case .sync(let upTo):
            if let failed = failedSinceSync {
                failedSinceSync = nil
                return .synced(FileSyncWorker.Outcome(upTo: upTo, failure: SystemError(
                    call: "commit", errno: failed.systemErrno != 0 ? failed.systemErrno : 28, path: database.path)))
            }
            guard dirty else { return .synced(FileSyncWorker.Outcome(upTo: upTo, failure: nil)) }
            let failure = FileSyncWorker.sync(database.path, known: &identity)
            if failure == nil { dirty = false }
            return .synced(FileSyncWorker.Outcome(upTo: upTo, failure: failure))
        case .checkpoint(let truncate):
            let error: StoreError? = database.locked {
                do { try database.checkpoint(truncate: truncate); return nil } catch {
                    return Self.storeError(error, label: "checkpoint", path: database.path)
                }
            }
            return .checkpointed(truncate: truncate, error: error)
        case .checkWAL:
            return .walRepair(checkWAL() ?? .intact)
        }
    }

    /// A repair found after a write, delivered right after that write's outcome.
    private var pendingRepair: WALRepair?

    /// Runs `jobs`, each repair found after a write placed right after it.
    func runAll(_ jobs: [StateJob]) -> [StateJobOutcome] {
        var outcomes: [StateJobOutcome] = []
        outcomes.reserveCapacity(jobs.count)
        for job in jobs {
            outcomes.append(run(job))
            if let repair = pendingRepair {
                pendingRepair = nil
                outcomes.append(.walRepair(repair))
            }
        }
        return outcomes
    }

    /// Whether `state.db` and `state.db-wal` are still the files the connection writes. A
    /// `state.db` gone is written again from the open database; a WAL gone has what it holds
    /// checkpointed into `state.db`, and the connection is reopened (a new WAL on disk).
    private func checkWAL() -> WALRepair? {
        database.locked {
            if !database.databaseFileIsAttached() {
                // A restart would open an empty database: write the open one as a new state.db.
                do {
                    try database.restoreRemovedFile()
                } catch {
                    return .restoreFailed(error: Self.storeError(error, label: "restore", path: database.path))
                }
                identity = nil
                dirty = true
                return .databaseRestored
            }
            guard let what = database.walDetachment() else { return nil }
            do {
                try database.checkpoint(truncate: true)
            } catch {
                return .saveFailed(what: what, error: Self.storeError(error, label: "checkpoint", path: database.path))
            }
            do {
                try database.reopen()
            } catch {
                return .reopenFailed(what: what, error: Self.storeError(error, label: "reopen", path: database.path))
            }
            identity = nil // a new log: its first sync syncs the directory too
            dirty = true
            return .repaired(what: what)
        }
    }

    static func storeError(_ error: any Error, label: String, path: String) -> StoreError {
        error as? StoreError ?? StoreError(operation: label, path: path, code: 0, message: "\(error)")
    }
}

/// The real writer: a thread of its own that owns every write, sync and checkpoint of the state
/// database, and a mailbox back to the loop. The request log's sync (``WriterSyncs``) is a job
/// on the same thread, queued after the request's write, so it covers it.
final class SQLiteWriter: StateCommitting {
    private let loop: EventLoop
    var onOutcome: (([StateJobOutcome]) -> Void)?
    /// Where sync outcomes go (``WriterSyncs``), each in its place among the others.
    var onSynced: ((FileSyncWorker.Outcome) -> Void)?
    private var mailbox: Mailbox<StateJobOutcome>?
    private var thread: JobThread<StateJob, StateJobOutcome>?
    private var runner: StateJobRunner?
    private var finished = false
    /// Jobs handed over and not reported yet, at most (the writer's bounded queue).
    static let capacity = 4_096

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// The connection jobs run on: set when the state database is opened.
    func use(_ database: Database, mostFrames: Int) {
        let runner = StateJobRunner(database: database, mostFrames: mostFrames)
        self.runner = runner
        if mailbox == nil {
            mailbox = try? Mailbox<StateJobOutcome>(loop: loop) { [unowned self] outcomes in self.deliver(outcomes) }
        }
        thread?.finish() // a new connection (opened late): the old one's jobs end first
        if let mailbox, !finished {
            thread = JobThread(capacity: Self.capacity, report: mailbox.sender) { jobs in runner.runAll(jobs) }
        }
    }

    func submit(_ job: StateJob) -> Bool {
        if let thread {
            var beyondCapacity = false
            if case .sync = job { beyondCapacity = true } // one per waiting request
            switch thread.submit(job, beyondCapacity: beyondCapacity) {
            case .queued: return true
            case .full: return false
            case .unavailable: break
            }
        }
        // No thread (it could not start, or the agent is stopping): run here, answer at once.
        guard let runner else { return false }
        deliver(runner.runAll([job]))
        return true
    }

    func spaceProblem(of state: StateDirectory) -> StateProblem? { state.spaceProblem() }

    func finish() {
        guard !finished else { return }
        finished = true
        thread?.finish()
        thread = nil
        if let mailbox {
            let last = mailbox.takeNow()
            if !last.isEmpty { deliver(last) }
        }
    }

    /// In order: a failed write is taken in before the sync outcome that follows it.
    private func deliver(_ outcomes: [StateJobOutcome]) {
        var others: [StateJobOutcome] = []
        for outcome in outcomes {
            if case .synced(let synced) = outcome {
                if !others.isEmpty { onOutcome?(others); others = [] }
                onSynced?(synced)
            } else {
                others.append(outcome)
            }
        }
        if !others.isEmpty { onOutcome?(others) }
    }
}
