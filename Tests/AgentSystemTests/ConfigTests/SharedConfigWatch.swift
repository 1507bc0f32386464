// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Glibc
import Synchronization
import Testing

/// The one `ConfigWatcher` of the test process (libinotifytools is process-global, so there can
/// be only one), watching a temporary config directory. Started on first use; every test that
/// needs real inotify subscribes to its event log, using file names of its own.
///
/// Waiting is event-driven: the watcher's callback appends to the log and writes a byte to a
/// pipe; a waiter sleeps in poll(2) on that pipe until its expected events are in the log or
/// its deadline passes.
final class SharedConfigWatch: Sendable {
    static let shared: Result<SharedConfigWatch, any Error> = Result { try SharedConfigWatch() }

    /// The watched config directory, with `manifests.d` and `jobs.d`.
    let root: String
    private let log: EventLog
    private let wakeReader: Int32
    private let barrierCounter = Atomic<Int>(0)

    /// The events received so far, shared between the watcher thread and the tests.
    final class EventLog: Sendable {
        let events = Mutex<[ConfigWatchEvent]>([])
        /// While set, the callback that delivers a change of this path blocks after logging
        /// its batch until a byte arrives on the release pipe: the watcher thread then stops
        /// reading and the kernel queue fills up. (Keyed to one path, so that a callback still
        /// busy with an earlier batch does not block before the trigger is even logged.)
        let holdOnChange = Mutex<String?>(nil)
    }
    private let releaseWriter: Int32

    private init() throws {
        // The config directory sits below a hidden directory on purpose: libinotifytools matches
        // its leftover filter against full paths, and every test here would fail if the
        // pattern took `/.config/` for a hidden file.
        let base = try ConfigFS.makeTemporaryDirectory()
        SharedConfigWatch.registerCleanup(base)
        try ConfigFS.makeDirectory(base + "/.config")
        root = base + "/.config/agentd"
        try ConfigFS.makeDirectory(root)
        try ConfigFS.makeDirectory(root + "/manifests.d")
        try ConfigFS.makeDirectory(root + "/jobs.d")
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ConfigFS.failure("pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeReader = ends[0]
        let wakeWriter = ends[1]
        var release: [Int32] = [0, 0]
        guard pipe(&release) == 0 else { throw ConfigFS.failure("pipe") }
        for end in release { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let releaseReader = release[0]  // blocking: the held callback sleeps in read(2)
        releaseWriter = release[1]
        let log = EventLog()
        self.log = log
        try ConfigWatcher(configDirectory: root).start { events in
            log.events.withLock { $0.append(contentsOf: events) }
            var byte: UInt8 = 1
            _ = Glibc.write(wakeWriter, &byte, 1)  // a full pipe already means "wake up"
            let hold = log.holdOnChange.withLock { trigger in
                trigger.map { events.contains(.changed(relativePath: $0)) } ?? false
            }
            if hold { _ = Glibc.read(releaseReader, &byte, 1) }
        }
    }

    /// Runs `body` while the watcher thread is stuck in its callback and reads no events, then
    /// lets it go on. `trigger` is a file (relative path) whose write brings the thread into
    /// the callback.
    func whileWatcherIsHeld(trigger: String, _ body: () throws -> Void) throws {
        let start = mark()
        log.holdOnChange.withLock { $0 = trigger }
        defer {
            log.holdOnChange.withLock { $0 = nil }
            var byte: UInt8 = 1
            _ = Glibc.write(releaseWriter, &byte, 1)
        }
        try ConfigFS.write(path(trigger))
        guard wait(for: .changed(relativePath: trigger), since: start) != nil else {
            throw ConfigFS.Failure(description: "\(trigger) was never reported")
        }
        try body()
    }

    /// A position in the log; `wait(since:)` looks only at events after it.
    func mark() -> Int {
        log.events.withLock { $0.count }
    }

    func events(since mark: Int) -> [ConfigWatchEvent] {
        log.events.withLock { Array($0[mark...]) }
    }

    /// Waits until `done` holds for the events after `mark`; returns them, or nil at the deadline.
    func wait(since mark: Int, timeout: Double = 20,
              until done: ([ConfigWatchEvent]) -> Bool) -> [ConfigWatchEvent]? {
        let deadline = configTestNow() + timeout
        while true {
            let seen = events(since: mark)
            if done(seen) { return seen }
            let remaining = deadline - configTestNow()
            if remaining <= 0 { return nil }
            var descriptor = pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(remaining * 1000, 1000)) + 1)
            var sink = [UInt8](repeating: 0, count: 256)
            while Glibc.read(wakeReader, &sink, sink.count) > 0 {}
        }
    }

    /// Waits until `event` is among the events after `mark`.
    func wait(for event: ConfigWatchEvent, since mark: Int, timeout: Double = 20) -> [ConfigWatchEvent]? {
        wait(since: mark, timeout: timeout) { $0.contains(event) }
    }

    /// Makes sure every event caused before this call has been delivered: inotify keeps one
    /// ordered queue per instance, so once a fresh file's event arrives, everything queued
    /// before it has been handled. The file goes into `directory` (a watched subdirectory).
    @discardableResult
    func barrier(in directory: String = "manifests.d") throws -> [ConfigWatchEvent] {
        let start = mark()
        let number = barrierCounter.add(1, ordering: .relaxed).newValue
        let relative = "\(directory)/zz-barrier-\(number)"
        try ConfigFS.write(root + "/" + relative, "[Manifest]\n")
        guard let seen = wait(for: .changed(relativePath: relative), since: start) else {
            throw ConfigFS.Failure(description: "barrier \(relative) was never reported")
        }
        return seen
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    /// Removes the temporary config directory when the test process exits (the watcher thread
    /// runs until then, so there is no earlier moment).
    private static func registerCleanup(_ root: String) {
        cleanupRoot.withLock { $0 = root }
        atexit {
            if let root = SharedConfigWatch.cleanupRoot.withLock({ $0 }) {
                ConfigFS.removeTree(root)
            }
        }
    }

    private static let cleanupRoot = Mutex<String?>(nil)
}
