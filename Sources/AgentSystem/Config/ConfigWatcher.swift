// SPDX-License-Identifier: Apache-2.0
import Glibc
import Synchronization

/// Watches the config directory (the directory itself, `manifests.d` and `jobs.d`, not
/// recursively) with libinotifytools and reports changes in batches.
///
/// **A per-process singleton.** libinotifytools keeps one inotify descriptor and its watch
/// tables in process-global state, so only one watcher can run in a process: a second `start`,
/// on this or any other instance, throws. The watcher then runs for the rest of the process.
///
/// The library reads blocking and never shows its descriptor, so it cannot join an epoll loop:
/// the watcher owns exactly one thread, asleep in `inotifytools_next_events` until something
/// changes. After each event it takes everything else already queued and makes one call to
/// `onEvents` for the whole burst, on that thread; the daemon's callback posts the batch to its
/// loop. Editor and package leftovers (`LeftoverNameFilter`) are dropped by the library's regex
/// filter before they are read.
///
/// The config directory may be deleted, moved, replaced or swapped for a symbolic link (a
/// deploy): its parent is watched for its name, and when the name comes back everything is
/// watched again and rescanned. While it is missing, the thread also looks for it once a second
/// (in case the parent could not be watched, or a symlink's target came back). `rearm()` (SIGHUP)
/// checks every watch against the file system.
///
/// Start the watcher before the initial scan, so that nothing changing in between goes unseen.
public final class ConfigWatcher: Sendable {
    /// The config directory, without trailing slashes.
    public let configDirectory: String

    /// At most this many kernel events go into one batch, so a flood (a package dropping
    /// thousands of files) still reaches the daemon in bounded pieces.
    static let maxEventsPerBatch = 4096

    /// Whether some instance has claimed libinotifytools for this process; the watcher thread
    /// runs while it is held.
    static let processClaim = Atomic<Bool>(false)

    /// What the watcher thread last published about its watches.
    private let currentHealth: Mutex<ConfigWatchHealth>
    /// Where `rearm()` pokes the watcher thread awake (set once the thread runs).
    private let wake = Mutex<ConfigWatchWake?>(nil)

    public init(configDirectory: String) {
        var path = configDirectory
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.configDirectory = path
        self.currentHealth = Mutex(ConfigWatchHealth(watchedDirectories: 0, missing: [path],
                                                     parentWatched: false))
    }

    /// How many config directories are watched and which are missing, as of the last burst.
    public var health: ConfigWatchHealth { currentHealth.withLock { $0 } }

    /// Has the watcher thread check every watch against the file system, re-watch what was
    /// replaced or came back, and rescan it (SIGHUP). Returns at once; the thread does the work.
    public func rearm() {
        wake.withLock { $0?.poke() }
    }

    /// Whether a directory entry name is an editor or package leftover that the watcher never
    /// reports; directory scans use it to skip the same names.
    public static func isLeftover(_ name: String) -> Bool {
        LeftoverNameFilter.isLeftover(name)
    }

    /// Sets up the watches and starts the watcher thread, which calls `onEvents` with each burst
    /// of changes for the rest of the process's life.
    ///
    /// Throws `ConfigWatcherError` when the config directory is missing or not a directory,
    /// when inotify cannot be initialised or a directory cannot be watched (limits, permissions),
    /// and when a watcher was already started in this process.
    public func start(onEvents: @escaping @Sendable ([ConfigWatchEvent]) -> Void) throws(ConfigWatcherError) {
        try checkDirectory()
        guard Self.processClaim.compareExchange(
            expected: false, desired: true, ordering: .acquiringAndReleasing
        ).exchanged else {
            throw ConfigWatcherError(
                "a config watcher is already running in this process (libinotifytools allows one)")
        }
        // Whether a new file's writer still holds it is asked with a lease given back at once
        // (`InotifyToolsSession.heldOpenForWriting`); a writer opening it in between breaks the
        // lease with SIGIO, whose default would end the process. Nothing here uses SIGIO, and
        // every plugin starts with default dispositions.
        _ = try? SignalSource.ignore(SIGIO)
        var session: InotifyToolsSession?
        do {
            let opened = try InotifyToolsSession.open(ignoring: LeftoverNameFilter.pattern)
            session = opened
            var host = opened
            var translator = ConfigWatchTranslator(configDirectory: configDirectory)
            try translator.armInitially(host: &host)
            let poke = ConfigWatchWake.open(session: &host)
            wake.withLock { $0 = poke }
            let health = translator.health
            currentHealth.withLock { $0 = health }
            try ConfigWatchThread.spawn(ConfigWatchThread(
                session: opened, translator: translator, wakeWD: poke?.wd,
                publish: { [self] health in self.currentHealth.withLock { $0 = health } },
                onEvents: onEvents))
        } catch {
            // Give the library and the claim back so a corrected start can succeed.
            session?.close()
            Self.processClaim.store(false, ordering: .releasing)
            throw error
        }
    }

    /// A clear error for the common mistakes before the library reports them as bare errno.
    private func checkDirectory() throws(ConfigWatcherError) {
        var info = stat()
        guard stat(configDirectory, &info) == 0 else {
            let missing = errno == ENOENT
            throw ConfigWatcherError("config directory \(configDirectory): \(SystemError.text(errno)); "
                + (missing ? "create it (mkdir -p \(configDirectory)/manifests.d \(configDirectory)/jobs.d) or "
                    : "make it readable by the agent (ls -ld \(configDirectory)) or ")
                + "name another with --config-dir")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw ConfigWatcherError("config directory \(configDirectory): not a directory; name a directory with --config-dir")
        }
    }
}

/// The watcher thread: the only code that touches libinotifytools once the watcher runs.
final class ConfigWatchThread {
    private let session: InotifyToolsSession
    private var translator: ConfigWatchTranslator
    private let onEvents: @Sendable ([ConfigWatchEvent]) -> Void
    private let publish: @Sendable (ConfigWatchHealth) -> Void
    /// The watch on the wake pipe: an event there is a re-arm request.
    private let wakeWD: Int32?

    init(session: InotifyToolsSession, translator: ConfigWatchTranslator, wakeWD: Int32?,
         publish: @escaping @Sendable (ConfigWatchHealth) -> Void,
         onEvents: @escaping @Sendable ([ConfigWatchEvent]) -> Void) {
        self.session = session
        self.translator = translator
        self.wakeWD = wakeWD
        self.publish = publish
        self.onEvents = onEvents
    }

    /// One raw event: a re-arm request or something for the translator.
    private func take(_ event: InotifyToolsSession.RawEvent, into batch: inout ConfigWatchBatch,
                      host: inout InotifyToolsSession) {
        if let wakeWD, event.wd == wakeWD {
            translator.requestVerification()
        } else {
            translator.handle(wd: event.wd, mask: event.mask, name: event.name,
                              into: &batch, host: &host)
        }
    }

    /// Starts a detached pthread running `thread`, which owns it from then on.
    static func spawn(_ thread: ConfigWatchThread) throws(ConfigWatcherError) {
        // Returns only if the claim is given up: the watcher lives as long as the process.
        if case .failure(let error) = HelperThread.start(joinable: false, { thread.run() }) {
            throw ConfigWatcherError("cannot start the config watcher thread: \(SystemError.text(error.errno))")
        }
    }

    /// The watch loop. It is written to end when the process claim is released (it never is
    /// while the daemon runs) rather than as `-> Never` with `while true`: Swift 6.3's optimizer
    /// does not terminate on the latter form in a release build.
    private func run() {
        // Again, as the contract of this thread: every signal goes to the daemon's loop.
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)

        var failures = 0
        while ConfigWatcher.processClaim.load(ordering: .relaxed) {
            var host = session
            var batch = ConfigWatchBatch()
            // While the config directory is missing, look for it once a second as well: its
            // parent may not be watchable, or it is a symlink whose target comes back.
            // While a new file's writer still holds it, look again each quiet second too.
            let searching = translator.rootLost
            let awaiting = translator.awaitsWriters
            switch session.next(timeoutSeconds: searching || awaiting ? 1 : -1) {
            case .event(let event):
                failures = 0
                take(event, into: &batch, host: &host)
            case .empty:
                if searching || awaiting {
                    if searching { translator.requestVerification() }
                    if awaiting { translator.checkWritersAfterAQuietSecond(into: &batch, host: host) }
                    break
                }
                // A blocking read does not come back empty-handed; should the library ever do
                // so, do not let it turn this thread into a spin loop.
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
                continue
            case .failed(let code):
                // Cannot happen with a healthy descriptor (no signal reaches this thread, so not
                // even EINTR). Say so, have the daemon rescan in case events were lost, and back
                // off instead of spinning.
                failures += 1
                if failures == 1 {
                    let line = "agentd: config watcher: reading inotify events failed: \(SystemError.text(code))\n"
                    _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
                    onEvents([.overflow])
                }
                var pause = timespec(tv_sec: min(failures, 60), tv_nsec: 0)
                nanosleep(&pause, nil)
                continue
            }
            var count = 1
            drain: while count < ConfigWatcher.maxEventsPerBatch {
                switch session.next(blocking: false) {
                case .event(let event):
                    take(event, into: &batch, host: &host)
                    count += 1
                case .empty, .failed:
                    break drain
                }
            }
            translator.finishBatch(into: &batch, host: &host)
            publish(translator.health)
            if !batch.isEmpty { onEvents(batch.events) }
        }
    }
}
