// SPDX-License-Identifier: Apache-2.0
import AgentStore
import AgentSystem
import Glibc

/// The state directory and its SQLite database. A directory that cannot be created or written
/// is not fatal: the agent keeps running with `problem` set (shown in `status`) and retries.
final class StateDirectory {
    let path: String
    private(set) var database: Database?
    /// Why the state cannot be used or written now; nil while it can.
    private(set) var writeProblem: String?
    /// The last thing done to the state behind the agent's back that it repaired (a deleted
    /// WAL): shown in status until the agent stops, for whoever looks for the culprit.
    private(set) var repair: String?
    /// Why the last request was refused before anything was written (too little free space,
    /// mounted read-only): shown until a request passes that check again or a write succeeds.
    private(set) var refusal: String?
    /// What `status` shows: the current problem, else the last repair.
    var problem: String? { writeProblem ?? refusal ?? repair }
    /// Why the last open failed (disk full, a lock, not writable), worded for a refused request.
    private(set) var openFailure: StateProblem?
    /// Below this much free space a request is refused before anything is written: a
    /// transaction appends a few 4 KiB pages to the WAL.
    static let minimumFreeBytes: UInt64 = 256 * 1024

    /// The per-user agent's state is its user's alone (DESIGN §10: 0700/0600): another user
    /// must not read its runs' titles, output or `RESULT=`.
    let isPrivate: Bool

    init(path: String, isPrivate: Bool = false) {
        self.path = path
        self.isPrivate = isPrivate
    }

    /// Reads the database's run records on the loop, while it is open (nil when it is not). The
    /// connection is the writer thread's too: the read holds it (``Database/locked``), so it
    /// waits while a write job runs — a commit's WAL append, or a checkpoint's two syncs.
    func reading<T>(_ body: (RunStore) throws -> T) rethrows -> T? {
        guard let database else { return nil }
        return try database.locked { try body(RunStore(database: database)) }
    }

    /// The connection was closed behind this object (a WAL repair whose reopen failed): `open`
    /// makes a new one.
    func forgetDatabase() {
        database = nil
    }

    /// A later failure of the open database (read-only, disk full): shown in status until a
    /// write succeeds again.
    func recordProblem(_ message: String) {
        writeProblem = message
    }

    /// A write succeeded: nothing stands in the way now.
    func clearProblem() {
        guard database != nil else { return }
        writeProblem = nil
        refusal = nil
    }

    func recordRepair(_ message: String) {
        repair = message
    }

    /// A request was refused up front (`message`), or nil: the last one passed.
    func recordRefusal(_ message: String?) {
        refusal = message
    }

    /// Directories and files an earlier version left readable by others are made private.
    private func tightenExisting() {
        for directory in [path, path + "/jobs"] { chmod(directory, 0o700) }
        for file in ["state.db", "state.db-wal", "state.db-shm"] { chmod(path + "/" + file, 0o600) }
    }

    /// Creates the directory if needed and opens the database; returns whether it is usable.
    @discardableResult
    func open() -> Bool {
        if database != nil { return true }
        do {
            let mode: mode_t = isPrivate ? 0o700 : 0o755
            try FileSystem.makeDirectories(path, mode: mode)
            try FileSystem.makeDirectories(path + "/jobs", mode: mode)
            if isPrivate { tightenExisting() }
            let db = try Database(path: path + "/state.db")
            try Migrations.apply(to: db)
            database = db
            writeProblem = nil
            openFailure = nil
            return true
        } catch {
            let store = error as? StoreError
            openFailure = StateProblem(kind: store?.kind ?? .notWritable, directory: path,
                                       detail: store.map { "\($0.message) (\($0.operation) of state.db)" } ?? "\(error)")
            let advice = openFailure?.kind == .locked
                ? "another process holds a lock on state.db (fuser -v \(path)/state.db)"
                : "check its permissions and free space"
            writeProblem = "state directory \(path) is not usable: \(error) (\(advice); agentd retries)"
            return false
        }
    }
}

extension StateDirectory {
    /// The file system holding the state is full or mounted read-only (statvfs: no write is
    /// needed to know). Root may use the blocks reserved for it, others may not.
    func spaceProblem() -> StateProblem? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        if info.f_flag & 1 != 0 { // ST_RDONLY
            return StateProblem(kind: .notWritable, directory: path, detail: "the file system is mounted read-only")
        }
        let blocks = geteuid() == 0 ? UInt64(info.f_bfree) : UInt64(info.f_bavail)
        let free = blocks * UInt64(info.f_frsize)
        guard free < Self.minimumFreeBytes else { return nil }
        return StateProblem(kind: .full, directory: path,
                            detail: "\(free / 1024) KiB free, \(Self.minimumFreeBytes / 1024) KiB needed")
    }
}
