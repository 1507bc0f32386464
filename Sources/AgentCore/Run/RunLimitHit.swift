// SPDX-License-Identifier: Apache-2.0
/// The kernel's counters of one run's cgroups, read once at the run's end (they are gone with
/// the cgroup): how often it enforced a limit.
public struct LimitCounters: Hashable, Sendable {
    /// Forks refused at `pids.max` (`pids.events` `max`).
    public var refusedForks = 0
    /// Times usage reached `memory.max` (v2 `memory.events` `max`; v1 `memory.failcnt`).
    public var memoryMaxReached = 0
    /// Processes the OOM killer killed inside the run (`oom_kill`).
    public var oomKills = 0

    public init(refusedForks: Int = 0, memoryMaxReached: Int = 0, oomKills: Int = 0) {
        self.refusedForks = refusedForks
        self.memoryMaxReached = memoryMaxReached
        self.oomKills = oomKills
    }

    /// Counters from several groups of one run (a v2 cgroup and v1 groups): the larger of each,
    /// since a group that does not enforce a limit counts nothing for it.
    public func merged(with other: LimitCounters) -> LimitCounters {
        LimitCounters(refusedForks: max(refusedForks, other.refusedForks),
                      memoryMaxReached: max(memoryMaxReached, other.memoryMaxReached),
                      oomKills: max(oomKills, other.oomKills))
    }

    /// The value of `key` in a flat-keyed cgroup file (`max 3\n`, `oom_kill 1\n`), or 0.
    public static func value(of key: String, in text: String) -> Int {
        for line in text.utf8.split(separator: TextBytes.newline) {
            let fields = line.split(separator: TextBytes.space)
            guard fields.count == 2, fields[0].elementsEqual(key.utf8) else { continue }
            return Int(String(decoding: fields[1], as: UTF8.self)) ?? 0
        }
        return 0
    }
}

/// A per-run limit a run reached, named beside its `expired(limit)` stop reason.
public enum RunLimitHit: Hashable, Sendable, CustomStringConvertible {
    /// The kernel refused this many forks at `TasksMax=limit`.
    case tasks(limit: Int, refusedForks: Int)
    /// The OOM killer killed this many processes of the run at `MemoryMax=limit`.
    case memory(limit: ByteSize, kills: Int)

    /// The limits a run with `limits` reached, from its counters. An OOM kill counts only when
    /// the run has a `MemoryMax=` and reached it (not a machine-wide OOM).
    public static func hits(_ limits: RunLimits, _ counters: LimitCounters) -> [RunLimitHit] {
        var hits: [RunLimitHit] = []
        if let tasks = limits.tasksMax, counters.refusedForks > 0 {
            hits.append(.tasks(limit: tasks, refusedForks: counters.refusedForks))
        }
        if let memory = limits.memoryMax, counters.oomKills > 0, counters.memoryMaxReached > 0 {
            hits.append(.memory(limit: memory, kills: counters.oomKills))
        }
        return hits
    }

    /// `TasksMax=20 (the kernel refused 37 forks)`, `MemoryMax=64M (the OOM killer killed 1 process)`.
    public var description: String {
        switch self {
        case .tasks(let limit, let refused):
            "TasksMax=\(limit) (the kernel refused \(refused) fork\(refused == 1 ? "" : "s"))"
        case .memory(let limit, let kills):
            "MemoryMax=\(limit) (the OOM killer killed \(kills) process\(kills == 1 ? "" : "es"))"
        }
    }

    /// The line the agent adds to the run's log tail, where `history` and `explain` find it.
    public var logLine: String { Self.logPrefix + description }

    static let logPrefix = "agentd: limit reached: "

    /// What the agent's limit lines at the end of a run's log tail say. The agent adds them
    /// after the run's last process has gone, so a plugin's own lines cannot follow them (a
    /// plugin printing the same words earlier is not taken for the agent).
    public static func details(inLogTail lines: [String]) -> [String] {
        lines.reversed().prefix { $0.utf8.starts(with: logPrefix.utf8) }.reversed().map { line in
            String(decoding: line.utf8.dropFirst(logPrefix.utf8.count), as: UTF8.self)
        }
    }
}
