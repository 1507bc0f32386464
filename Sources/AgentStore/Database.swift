// SPDX-License-Identifier: Apache-2.0
import CShim
import CSQLite
import Glibc

/// One SQLite connection in WAL mode. No C type leaves this module.
///
/// Two threads share the agent's connection (`locking_mode=EXCLUSIVE` admits no second one in
/// the process): the state writer's thread makes every write, sync and checkpoint, and the loop
/// reads. Each holds `locked` around its whole use (a transaction, a read with its statements),
/// which is what makes the type Sendable; nothing else touches it from two threads.
public final class Database: @unchecked Sendable {
    public let path: String
    private let exclusive: Bool
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var handle: OpaquePointer?
    /// Statements the agent runs again and again (one per run launched and ended), compiled once.
    private var cache: [String: Statement] = [:]
    /// Frames in the WAL after the last commit (the agent's connection only; 0 otherwise).
    public fileprivate(set) var walFrames = 0 {
        didSet { if walFrames >= framesAtWriteback + Self.framesPerWriteback { startWALWriteback() } }
    }
    /// `walFrames` when the kernel was last asked to start writing the WAL out.
    private var framesAtWriteback = 0
    /// A descriptor on `state.db-wal`: for that request, and to notice the WAL deleted.
    private var walFD: Int32 = -1
    /// A descriptor on `state.db`, to tell when its name no longer leads to it.
    private var databaseFD: Int32 = -1
    /// About 1 MiB of WAL (4 KiB pages) between two requests.
    static let framesPerWriteback = 256

    /// Opens (creating if needed) the database at `path` and switches it to WAL.
    ///
    /// - `exclusive` (the agent's connection): `locking_mode=EXCLUSIVE` is set before WAL is
    ///   entered, so SQLite keeps the WAL index in heap memory and never maps `state.db-shm` (a
    ///   truncated or immutable `-shm` cannot SIGBUS the agent). The agent is the only writer;
    ///   other processes read through the control socket. Without it (tests, tools), the usual
    ///   shared-memory index is used. The agent's connection also never checkpoints inside a
    ///   commit (SQLite's automatic checkpoint at 1,000 frames syncs two files, ~10–25 ms, in
    ///   whichever write crosses it, and a SIGKILL due meanwhile waits): it counts the WAL's
    ///   frames (`walFrames`) and its owner calls `checkpoint()` when the loop can afford it.
    /// - No busy timeout: a lock held by another process fails at once with SQLITE_BUSY, and the
    ///   caller retries from a timer instead of stalling its event loop.
    public init(path: String, exclusive: Bool = true) throws {
        self.path = path
        self.exclusive = exclusive
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        try connect()
    }

    /// Runs `body` holding the connection: the writer's thread around each job, the loop around
    /// each read. Not reentrant.
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Closes the connection and opens the same file again in this same object (everyone
    /// holding it keeps it): after the WAL was removed behind the agent's back, so that SQLite
    /// makes a new one on disk. On failure the connection stays closed.
    public func reopen() throws {
        close()
        try connect()
    }

    private func connect() throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot allocate"
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close(db)
            throw StoreError(operation: "open", path: path, code: rc, message: message, systemErrno: systemErrno)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 0)
        do {
            if exclusive { try execute("PRAGMA locking_mode=EXCLUSIVE") }
            try execute("PRAGMA journal_mode=WAL")
            // Replaces SQLite's automatic checkpoint (itself a WAL hook) with a frame count.
            if exclusive { sqlite3_wal_hook(db, countWALFrames, Unmanaged.passUnretained(self).toOpaque()) }
            try execute("PRAGMA synchronous=NORMAL")
            try execute("PRAGMA foreign_keys=ON")
            if exclusive { try holdWAL() }
        } catch {
            close()
            throw error
        }
    }

    /// Opens the WAL (a read makes SQLite open or create it) and keeps a descriptor on the very
    /// file SQLite writes, so that `walDetachment()` can tell when its name no longer leads there.
    private func holdWAL() throws {
        let statement = try prepare("PRAGMA user_version")
        _ = try statement.step()
        if walFD < 0 { walFD = open(path + "-wal", O_RDONLY | O_CLOEXEC) }
        if databaseFD < 0 { databaseFD = open(path, O_RDONLY | O_CLOEXEC) }
    }

    /// Whether the WAL this connection writes is still `state.db-wal` on disk: nil when it is
    /// (or nothing is known), else what happened to it. A WAL deleted or renamed under a live
    /// connection still takes every commit, but only in the open file: a crash would lose
    /// everything since the last checkpoint, as the next open finds no WAL (issue 28 item 12).
    /// Two system calls; cheap enough after each commit.
    public func walDetachment() -> String? {
        guard walFD >= 0 else { return nil }
        var held = stat()
        guard fstat(walFD, &held) == 0 else { return nil }
        if held.st_nlink == 0 { return "was deleted" }
        var named = stat()
        guard stat(path + "-wal", &named) == 0 else { return "was renamed away" }
        guard named.st_dev == held.st_dev, named.st_ino == held.st_ino else { return "was replaced by another file" }
        return nil
    }

    /// Writes the open database, whole, as a new `state.db` in place of one removed under it: what
    /// the WAL holds goes into the open file first (so the old WAL, left empty, is no other
    /// database's), a copy is made beside it (`VACUUM INTO`) and synced, renamed into place, and
    /// the connection reopened on it, with a WAL of its own.
    public func restoreRemovedFile() throws {
        try checkpoint(truncate: true)
        let copy = path + ".restoring"
        unlink(copy)
        try execute("VACUUM INTO '" + String(copy.flatMap { $0 == "'" ? ["'", "'"] : [$0] }) + "'")
        let fd = open(copy, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            Glibc.close(fd)
        }
        guard rename(copy, path) == 0 else {
            let code = errno
            unlink(copy)
            throw StoreError(operation: "rename", path: copy, code: SQLITE_IOERR, message: String(cString: strerror(code)),
                             systemErrno: code)
        }
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let directory = open(parent.isEmpty ? "/" : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            Glibc.close(directory)
        }
        try reopen()
    }

    /// Whether `state.db` itself is still the file this connection has open (a checkpoint into
    /// a deleted database file would save nothing, and reopening would start an empty one).
    public func databaseFileIsAttached() -> Bool {
        guard databaseFD >= 0 else { return true }
        var held = stat()
        var named = stat()
        guard fstat(databaseFD, &held) == 0 else { return true }
        return held.st_nlink > 0 && stat(path, &named) == 0
            && named.st_dev == held.st_dev && named.st_ino == held.st_ino
    }

    deinit {
        close()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Closes the connection (SQLite checkpoints what it can on the way); later calls fail.
    public func close() {
        cache.removeAll()
        if let handle {
            sqlite3_wal_hook(handle, nil, nil)
            sqlite3_close_v2(handle)
        }
        if walFD >= 0 { Glibc.close(walFD) }
        if databaseFD >= 0 { Glibc.close(databaseFD) }
        walFD = -1
        databaseFD = -1
        handle = nil
        walFrames = 0
        framesAtWriteback = 0
    }

    /// Asks the kernel to start writing the WAL's dirty pages out now, without waiting (commits
    /// under `synchronous=NORMAL` do not sync): the checkpoint's own sync of the WAL then finds
    /// little left to write. Measured: a checkpoint of 10,000 frames synced the WAL for 26 ms,
    /// stalling the loop; the database file's sync after it took under 1 ms.
    private func startWALWriteback() {
        framesAtWriteback = walFrames
        if walFD < 0 { walFD = open(path + "-wal", O_RDONLY | O_CLOEXEC) }
        if walFD >= 0 { _ = cshim_start_writeback(walFD) }
    }

    /// Like `prepare`, but keeps the compiled statement for the next call with the same SQL.
    /// Bind replaces all parameters, so a cached statement carries nothing over.
    public func cached(_ sql: String) throws -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw StoreError(operation: "execute \(sql.prefix(60))", path: path, code: extendedCode(rc),
                             message: message, systemErrno: systemErrno)
        }
    }

    /// Prepares a statement; bind values and step it through `Statement`.
    public func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw error("prepare \(sql.prefix(60))", rc)
        }
        return Statement(database: self, handle: statement)
    }

    /// Runs `body` inside one transaction, rolling back if it throws. `durable` syncs the WAL
    /// at commit (`synchronous=FULL`), so what it wrote survives a power loss, not only a crash
    /// of the agent: for requests people are told were accepted.
    public func transaction<T>(durable: Bool = false, _ body: () throws -> T) throws -> T {
        if durable { try execute("PRAGMA synchronous=FULL") }
        defer { if durable { try? execute("PRAGMA synchronous=NORMAL") } }
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            // SQLite may already have rolled back (SQLITE_FULL does): then this fails harmlessly.
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Copies the WAL into the database file, so a copy of the database file alone holds
    /// everything; `truncate` then cuts the WAL to zero bytes, else the next write starts it
    /// again from its beginning (RESTART: no truncation of a large file, which took ~17 ms of
    /// a 40 MB WAL's checkpoint, while writes go on; the file keeps its size until a later
    /// truncating checkpoint).
    public func checkpoint(truncate: Bool = true) throws {
        var logFrames: Int32 = 0
        var copiedFrames: Int32 = 0
        let mode = truncate ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_RESTART
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, mode, &logFrames, &copiedFrames)
        guard rc == SQLITE_OK else { throw error("checkpoint", rc) }
        walFrames = 0
        framesAtWriteback = 0
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows the last INSERT, UPDATE or DELETE changed.
    public var changedRows: Int { Int(sqlite3_changes(handle)) }

    /// The journal mode SQLite reports (`wal` once opened).
    public func journalMode() throws -> String {
        let statement = try prepare("PRAGMA journal_mode")
        return try statement.step() ? statement.text(0) ?? "" : ""
    }

    var lastMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "the database is closed" }
    private var systemErrno: Int32 { handle.map { sqlite3_system_errno($0) } ?? 0 }

    /// The extended code of the last failure when SQLite has one, else `rc`.
    private func extendedCode(_ rc: Int32) -> Int32 {
        guard let handle else { return rc }
        let extended = sqlite3_extended_errcode(handle)
        return extended & 0xff == rc & 0xff ? extended : rc
    }

    func error(_ operation: String, _ rc: Int32) -> StoreError {
        StoreError(operation: operation, path: path, code: extendedCode(rc), message: lastMessage,
                   systemErrno: systemErrno)
    }
}

/// SQLite's WAL hook: called after each commit with the frames now in the WAL.
private func countWALFrames(_ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?,
                            _ name: UnsafePointer<CChar>?, _ frames: Int32) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<Database>.fromOpaque(context).takeUnretainedValue().walFrames = Int(frames)
    return SQLITE_OK
}
