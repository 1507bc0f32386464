// SPDX-License-Identifier: Apache-2.0

/// The directories one run's cgroups are made of, made ahead of it by the ``RunCgroupWorker``:
/// the unified cgroup, and the cgroup v1 `pids` group of a hybrid host. Empty, without limits
/// and without a descriptor open: the loop opens their files when the run launches.
public struct MadeRunCgroups: Sendable, Equatable {
    public var unified: String?
    public var pidsGroup: String?

    public init(unified: String? = nil, pidsGroup: String? = nil) {
        self.unified = unified
        self.pidsGroup = pidsGroup
    }

    var paths: [String] { [unified, pidsGroup].compactMap { $0 } }
}

/// A cgroup directory to remove off the loop.
public struct CgroupRemoval: Sendable, Equatable {
    public var path: String
    /// An ended run's cgroup v1 group: what is still in it is a leftover of the run and is
    /// killed (see ``RunLimitGroups``). A unified run cgroup is removed only once the kernel
    /// said it is empty, and a cgroup made ahead was never used: neither kills anything.
    public var killingLeftovers: Bool

    public init(path: String, killingLeftovers: Bool) {
        self.path = path
        self.killingLeftovers = killingLeftovers
    }
}

/// What the cgroup worker does next, decided under its lock from what the loop asked (pure:
/// the worker thread carries it out). Runs are numbered in order, so the cgroups of the next
/// few can be made before they launch; once launches stop for `idleAfter`, what was made and
/// not used goes again, so an idle agent holds no cgroup for a run that has not happened.
struct CgroupWorkPlan {
    enum Step: Equatable {
        case make(UInt64)
        case remove([CgroupRemoval])
        /// Launches stopped: the cgroups made ahead go, removed while the loop cannot take one
        /// (under the worker's lock: the next launch uses the first of these names again, and
        /// its own `mkdir` must not find a directory about to be removed).
        case trim([CgroupRemoval])
        /// Nothing to do: the worker waits until woken, or at most this many nanoseconds.
        case idle(nanoseconds: UInt64?)
        case stop
    }

    /// How many runs ahead of the last one launched are made.
    let ahead: UInt64
    let idleAfterNanoseconds: UInt64

    private(set) var stock: [UInt64: MadeRunCgroups] = [:]
    /// The highest run number the loop has asked for.
    private(set) var lastTaken: UInt64?
    private var lastTakeAt: UInt64 = 0
    private var nextToMake: UInt64 = 0
    /// The number being made now, outside the lock, and whether the loop asked for it meanwhile
    /// (it then made or took the directory itself — its mkdir tolerates one that exists — so
    /// the worker's is not removed).
    private var making: UInt64?
    private var makingWasTaken = false
    private(set) var removals: [CgroupRemoval] = []
    private var stopping = false

    init(ahead: Int, idleAfterNanoseconds: UInt64) {
        self.ahead = UInt64(max(1, ahead))
        self.idleAfterNanoseconds = idleAfterNanoseconds
    }

    /// The loop launches run `number`: its cgroups if they were made. Made ones for lower
    /// numbers were for runs that never launched (a plugin refused before its cgroup was due)
    /// and go.
    mutating func take(_ number: UInt64, now: UInt64) -> MadeRunCgroups? {
        lastTaken = max(lastTaken ?? 0, number)
        lastTakeAt = now
        if making == number { makingWasTaken = true }
        for key in stock.keys.sorted() where key < number {
            if let stale = stock.removeValue(forKey: key) { giveUp(stale) }
        }
        return stock.removeValue(forKey: number)
    }

    /// The loop hands over directories of ended runs (their descriptors already closed).
    mutating func remove(_ directories: [CgroupRemoval]) {
        removals += directories
    }

    /// The agent stops: nothing more is made, what was made and every removal still goes.
    mutating func stop() {
        stopping = true
        removals += takeStock()
    }

    /// The worker finished making `number` (what it made; nothing when the directory existed).
    mutating func made(_ number: UInt64, _ result: MadeRunCgroups) {
        let taken = makingWasTaken
        making = nil
        makingWasTaken = false
        if taken || result.paths.isEmpty { return }
        if stopping || number <= (lastTaken ?? 0) {
            giveUp(result)
        } else {
            stock[number] = result
        }
    }

    /// The next step at monotonic time `now`. Removals go first while enough is made ahead;
    /// making the next run's cgroups goes first when the stock runs low.
    mutating func next(now: UInt64, maxRemovals: Int = 8) -> Step {
        if let last = lastTaken, !stopping, now &- lastTakeAt >= idleAfterNanoseconds, !stock.isEmpty {
            nextToMake = last + 1
            return .trim(takeStock())
        }
        let lowStock = UInt64(stock.count) < (ahead + 1) / 2
        if !removals.isEmpty && !lowStock { return takeRemovals(maxRemovals) }
        if let number = nextNumberToMake(now: now) {
            making = number
            nextToMake = number + 1
            return .make(number)
        }
        if !removals.isEmpty { return takeRemovals(maxRemovals) }
        if stopping { return .stop }
        if !stock.isEmpty {
            let idle = now &- lastTakeAt
            return .idle(nanoseconds: idle >= idleAfterNanoseconds ? 0 : idleAfterNanoseconds - idle)
        }
        return .idle(nanoseconds: nil)
    }

    private func nextNumberToMake(now: UInt64) -> UInt64? {
        guard !stopping, let last = lastTaken, now &- lastTakeAt < idleAfterNanoseconds else { return nil }
        let number = max(nextToMake, last + 1)
        return number <= last + ahead ? number : nil
    }

    private mutating func takeRemovals(_ limit: Int) -> Step {
        let count = min(limit, removals.count)
        let taken = Array(removals.prefix(count))
        removals.removeFirst(count)
        return .remove(taken)
    }

    /// The stock's directories in run order, the stock emptied.
    private mutating func takeStock() -> [CgroupRemoval] {
        defer { stock = [:] }
        return stock.keys.sorted().flatMap { key in
            (stock[key]?.paths ?? []).map { CgroupRemoval(path: $0, killingLeftovers: false) }
        }
    }

    private mutating func giveUp(_ made: MadeRunCgroups) {
        removals += made.paths.map { CgroupRemoval(path: $0, killingLeftovers: false) }
    }
}
