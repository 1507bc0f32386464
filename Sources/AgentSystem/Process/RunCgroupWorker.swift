// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// Makes run cgroups ahead of the runs that will use them and removes ended runs' cgroups, on a
/// thread of its own, so that the event loop never waits in `mkdir`/`rmdir` of cgroupfs: both
/// take the kernel's cgroup lock, which its workers hold for milliseconds at a time while they
/// take down the cgroups removed before (traced: 7–13 ms `mkdir`s at ~1,500 runs a second,
/// with `status` waiting behind them). The directories keep their names (`run-RUNID`, which
/// the restart recovery checks): the next runs' numbers are known, and a run whose cgroups are
/// not ready yet makes them itself, as without the worker. The thread starts with the first
/// launch and sleeps, without a timer, while nothing is asked of it.
public final class RunCgroupWorker: Sendable {
    /// Where each run's directories go: `unifiedParent/NAME` and `pidsParent/NAME`.
    public struct Layout: Sendable {
        public var unifiedParent: String?
        public var pidsParent: String?
        public var name: @Sendable (UInt64) -> String

        public init(unifiedParent: String?, pidsParent: String?, name: @escaping @Sendable (UInt64) -> String) {
            self.unifiedParent = unifiedParent
            self.pidsParent = pidsParent
            self.name = name
        }
    }

    private struct Shared {
        var plan: CgroupWorkPlan
        var asleep = false
        var thread: pthread_t?
        var failedToStart = false
    }

    private let layout: Layout
    private let shared: ThreadLock<Shared>
    private let wakeFD: Int32

    /// `ahead`: how many runs past the last launched are made; `idleAfter`: how long without a
    /// launch before what was made ahead goes again.
    public init(layout: Layout, ahead: Int = 16, idleAfter: Duration = .seconds(1)) {
        self.layout = layout
        let (seconds, attoseconds) = idleAfter.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
        shared = ThreadLock(Shared(plan: CgroupWorkPlan(ahead: ahead, idleAfterNanoseconds: nanoseconds)))
        wakeFD = cshim_eventfd()
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
    }

    /// On the loop: the cgroups made for run `number`, nil when they are not ready (the caller
    /// makes them, as it would without the worker). Asks for the next runs' cgroups, which the
    /// thread starts on at `wakeAfterSpawn`: woken now, it would take the second CPU of a small
    /// machine just when the kernel places the run's new process (traced on 2 cores: the child
    /// queued behind the loop while the worker made the next cgroup).
    public func take(_ number: UInt64) -> MadeRunCgroups? {
        let (made, started) = shared.withLock { shared -> (MadeRunCgroups?, Bool) in
            let made = shared.plan.take(number, now: cshim_monotonic_ns())
            return (made, shared.thread != nil || shared.failedToStart)
        }
        if !started { start() }
        return made
    }

    /// On the loop, once the run `take` was for has been spawned (or has failed to): the thread
    /// goes on to the next runs' cgroups.
    public func wakeAfterSpawn() {
        if shared.withLock({ Self.wakeUp(&$0) }) { signal() }
    }

    /// On the loop: these directories are to go (descriptors already closed). Without the
    /// thread (it could not start) they go here and now.
    public func remove(_ directories: [CgroupRemoval]) {
        guard !directories.isEmpty else { return }
        let (wake, running) = shared.withLock { shared -> (Bool, Bool) in
            guard shared.thread != nil else { return (false, false) }
            shared.plan.remove(directories)
            return (Self.wakeUp(&shared), true)
        }
        if wake { signal() }
        if !running { _ = Self.removeNow(directories) }
    }

    /// On the loop: a directory made ahead that the run does not use (a job without the limit
    /// it is for, a cgroup that could not be opened) goes.
    public func discard(_ path: String) {
        remove([CgroupRemoval(path: path, killingLeftovers: false)])
    }

    /// At the agent's stop: what was made ahead and every pending removal goes; returns once the
    /// thread is done (a leftover still exiting is retried for up to a second).
    public func finish() {
        let thread = shared.withLock { shared -> pthread_t? in
            shared.plan.stop()
            shared.asleep = false
            return shared.thread
        }
        guard let thread else { return }
        signal()
        pthread_join(thread, nil)
        shared.withLock { $0.thread = nil }
    }

    /// Whether the thread sleeps and needs a wakeup (it is then counted as woken).
    private static func wakeUp(_ shared: inout Shared) -> Bool {
        if shared.thread == nil { return false }
        guard shared.asleep else { return false }
        shared.asleep = false
        return true
    }

    private func signal() {
        _ = cshim_eventfd_signal(wakeFD)
    }

    // MARK: the thread

    /// Starts the thread if it is not running; false if it cannot start (the loop then does
    /// everything itself: `take` finds nothing made, removals are done at once).
    @discardableResult
    func start() -> Bool {
        let needed = shared.withLock { shared -> Bool in
            if wakeFD < 0 { shared.failedToStart = true }
            return shared.thread == nil && !shared.failedToStart
        }
        guard needed else { return false }
        switch HelperThread.start(joinable: true, { self.run() }) {
        case .success(let handle):
            shared.withLock { $0.thread = handle }
        case .failure:
            shared.withLock { $0.failedToStart = true }
            return false
        }
        signal()
        return true
    }

    private func run() {
        var busy: [(removal: CgroupRemoval, attempts: Int)] = []
        var probes = (unified: Self.unifiedFiles, pids: Self.pidsGroupFiles)
        while true {
            let step = shared.withLock { shared -> CgroupWorkPlan.Step in
                let step = shared.plan.next(now: cshim_monotonic_ns())
                switch step {
                case .idle: shared.asleep = true
                // Rare (a second after a burst of launches) and quick (no contention by then).
                case .trim(let removals): _ = Self.removeNow(removals)
                default: break
                }
                return step
            }
            switch step {
            case .make(let number):
                let made = make(number, probing: &probes)
                shared.withLock { $0.plan.made(number, made) }
            case .remove(let removals):
                busy += Self.removeNow(removals).map { ($0, 1) }
            case .trim:
                continue
            case .idle(let nanoseconds):
                busy = Self.retry(busy)
                // While a removal waits for a leftover to exit, look again every 100 ms.
                let retry: UInt64? = busy.isEmpty ? nil : 100_000_000
                wait(nanoseconds: [nanoseconds, retry].compactMap { $0 }.min())
            case .stop:
                _ = Self.removeRetrying(busy.map(\.removal), attempts: 100)
                return
            }
        }
    }

    private func wait(nanoseconds: UInt64?) {
        var entry = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        let milliseconds = nanoseconds.map { Int32(min($0 / 1_000_000 + 1, 3_600_000)) } ?? -1
        _ = poll(&entry, 1, milliseconds)
        _ = cshim_eventfd_drain(wakeFD)
        shared.withLock { $0.asleep = false }
    }

    /// Makes run `number`'s directories and looks their files up. One that exists is not the
    /// worker's (the loop made it for a run that could not wait): it is not in what is returned.
    /// `probing` narrows to the files the first directory had: every sibling has the same ones
    /// (the parent's controllers decide), and a lookup in cgroupfs costs as much as the mkdir.
    private func make(_ number: UInt64, probing: inout (unified: [String], pids: [String])) -> MadeRunCgroups {
        let name = layout.name(number)
        var made = MadeRunCgroups()
        if let parent = layout.unifiedParent {
            let path = parent + "/" + name
            guard mkdir(path, 0o755) == 0 else { return made }
            made.unified = path
            probing.unified = Self.lookUp(probing.unified, in: path)
        }
        if let parent = layout.pidsParent, mkdir(parent + "/" + name, 0o755) == 0 {
            made.pidsGroup = parent + "/" + name
            probing.pids = Self.lookUp(probing.pids, in: parent + "/" + name)
        }
        return made
    }

    /// The files the loop opens in a run's unified cgroup (limits where controllers are
    /// delegated, the CPU weight, the counters read at the end, kill and freeze).
    static let unifiedFiles = ["cgroup.procs", "cgroup.events", "pids.max", "memory.max", "memory.high",
                               "cpu.weight", "pids.events", "memory.events", "cgroup.kill", "cgroup.freeze"]
    static let pidsGroupFiles = ["tasks", "pids.max", "pids.events"]

    /// Looks each file up once, so the loop's `open` finds it in the dentry cache: a first
    /// lookup in a new cgroup waits for the hierarchy's lock behind this thread's mkdir/rmdir.
    /// Returns those that exist. (A controller enabled later goes unprobed: its files' first
    /// open is slower, nothing else.)
    private static func lookUp(_ files: [String], in directory: String) -> [String] {
        files.filter { access(directory + "/" + $0, F_OK) == 0 }
    }

    /// Removes each directory; returns those still busy.
    private static func removeNow(_ removals: [CgroupRemoval]) -> [CgroupRemoval] {
        removals.filter { removal in
            if removal.killingLeftovers { return !RunLimitGroups.removeStale([removal.path]).isEmpty }
            return rmdir(removal.path) != 0 && errno != ENOENT
        }
    }

    /// Tries busy removals again; one that is still busy after 100 tries (10 s) is left
    /// (the next start of the agent removes what a gone agent left).
    private static func retry(_ busy: [(removal: CgroupRemoval, attempts: Int)]) -> [(removal: CgroupRemoval, attempts: Int)] {
        guard !busy.isEmpty else { return busy }
        let still = Set(removeNow(busy.map(\.removal)).map(\.path))
        return busy.filter { still.contains($0.removal.path) && $0.attempts < 100 }.map { ($0.removal, $0.attempts + 1) }
    }

    /// At stop: removes, waiting up to `attempts` × 10 ms for leftovers still exiting.
    static func removeRetrying(_ removals: [CgroupRemoval], attempts: Int) -> [CgroupRemoval] {
        var left = removeNow(removals)
        for _ in 0..<attempts where !left.isEmpty {
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
            left = removeNow(left)
        }
        return left
    }
}
