// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// Syncs the state database's write-ahead log on a thread of its own and tells the loop when each
/// sync is done, so the loop never waits in `fdatasync` (traced under load: 54 ms for one, with
/// every deadline and `status` behind it). Requests are numbered; one sync answers every request
/// made before it began, so the requests that come while a sync runs share the next one (a group
/// commit). The first sync of a log file the worker has not synced before (created, or replaced)
/// syncs its directory too, so that its name survives a power cut as well as its contents. When
/// there is no log (the database is not in WAL mode), the database file itself is synced.
///
/// The thread starts with the first request and sleeps, without a timer, between requests. When
/// it cannot start, `request` syncs on the caller's thread and reports at once: slower, never unsynced.
public final class FileSyncWorker: Sendable {
    /// A finished sync: every request numbered up to `upTo` is answered by it.
    public struct Outcome: Sendable, Equatable {
        public var upTo: UInt64
        /// Why the data may not be on disk; nil when the sync succeeded.
        public var failure: SystemError?

        public init(upTo: UInt64, failure: SystemError?) {
            self.upTo = upTo
            self.failure = failure
        }
    }

    private struct Shared {
        var requested: UInt64 = 0
        var stopping = false
        var thread: pthread_t?
        var failedToStart = false
    }

    /// The database file; its log is `database + "-wal"`.
    public let database: String
    private let shared = ThreadLock(Shared())
    private let wakeFD: Int32
    private let report: MailboxSender<Outcome>

    /// `report` receives each outcome on the loop (a Mailbox the caller owns).
    public init(database: String, report: MailboxSender<Outcome>) {
        self.database = database
        self.report = report
        wakeFD = cshim_eventfd()
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
    }

    /// Asks for a sync that covers everything written so far; `number` must grow with each call.
    public func request(_ number: UInt64) {
        let running = shared.withLock { shared -> Bool in
            shared.requested = max(shared.requested, number)
            return shared.thread != nil
        }
        if running || start() {
            _ = cshim_eventfd_signal(wakeFD)
        } else {
            _ = report.post(Outcome(upTo: number, failure: Self.syncNow(database)))
        }
    }

    /// At the agent's stop: the sync asked for last is finished and reported (the mailbox is
    /// still open), then the thread ends; returns once it has.
    public func finish() {
        let thread = shared.withLock { shared -> pthread_t? in
            shared.stopping = true
            return shared.thread
        }
        guard let thread else { return }
        _ = cshim_eventfd_signal(wakeFD)
        pthread_join(thread, nil)
        shared.withLock { $0.thread = nil }
    }

    // MARK: the thread

    private func start() -> Bool {
        let needed = shared.withLock { shared -> Bool in
            if wakeFD < 0 { shared.failedToStart = true }
            return shared.thread == nil && !shared.failedToStart && !shared.stopping
        }
        guard needed else { return false }
        switch HelperThread.start(joinable: true, { self.run() }) {
        case .success(let handle):
            shared.withLock { $0.thread = handle }
            return true
        case .failure:
            shared.withLock { $0.failedToStart = true }
            return false
        }
    }

    private func run() {
        var synced: UInt64 = 0
        var identity = FileIdentity?.none
        while true {
            let (target, stopping) = shared.withLock { ($0.requested, $0.stopping) }
            if target > synced {
                let failure = Self.sync(database, known: &identity)
                synced = target
                _ = report.post(Outcome(upTo: target, failure: failure))
                continue
            }
            if stopping { return }
            var entry = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, -1)
            _ = cshim_eventfd_drain(wakeFD)
        }
    }

    /// Which file was synced last, to know when a log is new.
    public struct FileIdentity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    /// The same sync on the caller's thread, directory included: for a retry after a failed
    /// sync, the agent's stop, and a worker that could not start.
    public static func syncNow(_ database: String) -> SystemError? {
        var identity = FileIdentity?.none
        return sync(database, known: &identity)
    }

    /// `fdatasync` of the log (or of the database when there is no log), and of the directory
    /// when the log is one not synced before.
    public static func sync(_ database: String, known: inout FileIdentity?) -> SystemError? {
        var path = database + "-wal"
        var fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0, errno == ENOENT {
            path = database
            fd = open(path, O_RDONLY | O_CLOEXEC)
        }
        guard fd >= 0 else { return .last("open", path: path) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .last("fstat", path: path) }
        while fdatasync(fd) != 0 {
            if errno != EINTR { return .last("fdatasync", path: path) }
        }
        let identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        guard identity != known else { return nil }
        let directory = FileSystem.parentDirectory(of: database)
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { return .last("open", path: directory) }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { return .last("fsync", path: directory) }
        known = identity
        return nil
    }
}
