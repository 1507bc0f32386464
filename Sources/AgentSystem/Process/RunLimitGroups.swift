// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// One run's cgroup v1 groups on a hybrid host (a `pids` group, a `memory` group): made with the
/// run's limits before the spawn, joined by the child before exec (it writes `0` to each
/// `tasks` file it is handed: its one thread, so the kernel takes no process-wide lock), read
/// for their counters and removed at the run's end.
public final class RunLimitGroups {
    struct Group {
        var controller: String
        var path: String
    }

    private let groups: [Group]
    /// `tasks` of each group, open for writing until the child has joined.
    public private(set) var joinDescriptors: [Int32]

    private init(groups: [Group], joinDescriptors: [Int32]) {
        self.groups = groups
        self.joinDescriptors = joinDescriptors
    }

    deinit { closeJoinDescriptors() }

    /// The groups' directories: a process in one of them is this run's (the control socket
    /// recognises a run's processes by them, DESIGN §9).
    public var paths: [String] { groups.map(\.path) }

    /// Called once the child has joined (or failed to start): a run holds no more descriptors
    /// than it needs.
    public func closeJoinDescriptors() {
        for fd in joinDescriptors { close(fd) }
        joinDescriptors = []
    }

    /// Makes `name` below each `(controller, parent)` (those in `made` exist: the worker made
    /// them ahead) and writes `limits` into it. Fails, with nothing left behind, when a group
    /// cannot be made or a limit not written.
    static func create(_ name: String, in parents: [(controller: String, directory: String)],
                       limits: RunLimits, made: Set<String> = []) throws(SystemError) -> RunLimitGroups {
        var groups: [Group] = []
        var descriptors: [Int32] = []
        for parent in parents {
            let group = Group(controller: parent.controller, path: parent.directory + "/" + name)
            do throws(SystemError) {
                try make(group, limits: limits, exists: made.contains(group.path))
                let fd = open(group.path + "/tasks", O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw SystemError(call: "open tasks", errno: errno, path: group.path) }
                groups.append(group)
                descriptors.append(fd)
            } catch {
                rmdir(group.path)
                _ = RunLimitGroups(groups: groups, joinDescriptors: descriptors).remove()
                throw error
            }
        }
        return RunLimitGroups(groups: groups, joinDescriptors: descriptors)
    }

    private static func make(_ group: Group, limits: RunLimits, exists: Bool) throws(SystemError) {
        if !exists && mkdir(group.path, 0o755) != 0 && errno != EEXIST {
            throw SystemError(call: "mkdir", errno: errno, path: group.path)
        }
        var writes: [(String, String)] = []
        switch group.controller {
        case "pids":
            writes.append(("pids.max", limits.tasksMax.map(String.init) ?? "max"))
        case "memory":
            if let max = limits.memoryMax { writes.append(("memory.limit_in_bytes", String(max.bytes))) }
            if let high = limits.memoryHigh { writes.append(("memory.soft_limit_in_bytes", String(high.bytes))) }
        default:
            break
        }
        for (file, value) in writes {
            let rc = writeControlFile(group.path + "/" + file, value)
            if rc != 0 { throw SystemError(call: "write \(file)", errno: rc, path: group.path) }
        }
    }

    /// How often the kernel enforced the limits of these groups (read before they are removed).
    public var limitCounters: LimitCounters {
        var counters = LimitCounters()
        for group in groups {
            switch group.controller {
            case "pids":
                let events = SmallFile.read(group.path + "/pids.events") ?? ""
                counters.refusedForks = LimitCounters.value(of: "max", in: events)
            case "memory":
                let control = SmallFile.read(group.path + "/memory.oom_control") ?? ""
                counters.oomKills = LimitCounters.value(of: "oom_kill", in: control)
                counters.memoryMaxReached = Int((SmallFile.read(group.path + "/memory.failcnt") ?? "")
                    .split(separator: "\n").first ?? "") ?? 0
            default:
                break
            }
        }
        return counters
    }

    /// The groups, for removal off the loop (see ``RunCgroupWorker``): what is still in them is
    /// a leftover of the ended run.
    public var removals: [CgroupRemoval] {
        groups.map { CgroupRemoval(path: $0.path, killingLeftovers: true) }
    }

    /// Removes the groups. A process still in one (it left the run's process group and the run
    /// had no unified cgroup) is killed first: the run has ended. Returns the groups that were
    /// still busy, for a later ``removeStale(_:)``.
    public func remove() -> [String] {
        closeJoinDescriptors()
        return Self.removeStale(groups.map(\.path))
    }

    /// Removes each group directory, killing what is left in it; returns those still busy
    /// (SIGKILL takes a moment).
    static func removeStale(_ paths: [String]) -> [String] {
        paths.filter { path in
            if rmdir(path) == 0 || errno == ENOENT { return false }
            let members = (SmallFile.read(path + "/cgroup.procs", limit: 1 << 20) ?? "").split(separator: "\n")
            for member in members { if let pid = pid_t(member) { kill(pid, SIGKILL) } }
            return rmdir(path) != 0 && errno != ENOENT
        }
    }
}
