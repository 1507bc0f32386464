// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// What enforces per-run limits on this machine (DESIGN §3 `TasksMax=`, `MemoryMax=`,
/// `MemoryHigh=`), found once when the agent starts: the `pids` and `memory` controllers enabled
/// for the runs' unified cgroups where they are delegated, else cgroup v1 `pids` and `memory`
/// hierarchies (a hybrid host), in which each run gets a group of its own below the agent's.
public final class LimitControllers {
    /// Per key: enforced by what, or why not (for `agentctl status`).
    public let enforcement: [LimitEnforcement]
    /// Controllers enabled for the runs' unified cgroups.
    public let unified: Set<String>
    /// cgroup v1 controllers and the agent's directory of run groups in each.
    private let v1Parents: [(controller: String, directory: String)]
    /// v1 groups whose removal must be retried (a killed leftover was still exiting).
    private var busyGroups: [String] = []
    /// v1 groups of a dead agent whose leftovers another agent kills (see `setUp`): removed once
    /// empty, never emptied here.
    private var waitingGroups: [String] = []

    private static let controllers = ["pids", "memory"]

    private init(enforcement: [LimitEnforcement], unified: Set<String>,
                 v1Parents: [(controller: String, directory: String)], busyGroups: [String],
                 waitingGroups: [String]) {
        self.enforcement = enforcement
        self.unified = unified
        self.v1Parents = v1Parents
        self.busyGroups = busyGroups
        self.waitingGroups = waitingGroups
    }

    /// Enables `pids` and `memory` for the cgroups under `runsParent` (the agent's directory of
    /// run cgroups in `hierarchy`, nil when it has none), and makes `groupName` in each cgroup v1
    /// hierarchy that has a controller the unified one lacks.
    public static func setUp(unified hierarchy: CgroupHierarchy?, runsParent: String?,
                             groupName: String) -> LimitControllers {
        var unified = UnifiedControllers()
        // Unified run cgroups of a dead agent are its recorded runs': the restart recovery kills
        // what is in them. Only empty ones go here.
        if let hierarchy { _ = removeGroupsOfGoneAgents(in: hierarchy.ownDirectory, killingLeftovers: false, unlessUnifiedIn: nil) }
        if let hierarchy, let runsParent {
            unified = hierarchy.enableControllers(controllers, forRunsUnder: runsParent)
        } else {
            for name in controllers { unified.problems[name] = "no writable cgroup v2 hierarchy" }
        }
        var v1Parents: [(controller: String, directory: String)] = []
        var v1Problems: [String: String] = [:]
        var busyGroups: [String] = []
        var waitingGroups: [String] = []
        for name in controllers where !unified.enabled.contains(name) {
            guard let v1 = CgroupV1Controller.detect(name) else {
                v1Problems[name] = "no cgroup v1 \(name) hierarchy"
                continue
            }
            // Nothing records a dead agent's v1 groups; whatever is still in them is a leftover
            // of its runs (cgroups do not outlive a boot) and is killed — unless the dead agent
            // also had unified run cgroups: then its leftovers are there too, and the agent that
            // recovers its runs (the one with its state directory) kills them; another agent on
            // the machine must not. Busy groups are retried until they are empty.
            let left = removeGroupsOfGoneAgents(in: v1.ownDirectory, killingLeftovers: true,
                                                unlessUnifiedIn: hierarchy?.ownDirectory)
            busyGroups += left.busy
            waitingGroups += left.waiting
            let directory = v1.ownDirectory + "/" + groupName
            if mkdir(directory, 0o755) == 0 || errno == EEXIST {
                v1Parents.append((name, directory))
            } else {
                v1Problems[name] = "cannot create \(directory): \(SystemError.text(errno))"
            }
        }
        let enforcement = keys.map { key, controller in
            if unified.enabled.contains(controller) {
                return LimitEnforcement(key: key, by: "cgroup v2 \(controller)")
            }
            if v1Parents.contains(where: { $0.controller == controller }) {
                return LimitEnforcement(key: key, by: "cgroup v1 \(controller)")
            }
            let reasons = [unified.problems[controller], v1Problems[controller]].compactMap { $0 }
            return LimitEnforcement(key: key, notEnforcedBecause: reasons.joined(separator: "; "))
        }
        return LimitControllers(enforcement: enforcement, unified: unified.enabled, v1Parents: v1Parents,
                                busyGroups: busyGroups, waitingGroups: waitingGroups)
    }

    /// Each key and the controller behind it.
    private static let keys: [(String, String)] = [
        ("TasksMax", "pids"), ("MemoryMax", "memory"), ("MemoryHigh", "memory"),
    ]

    /// Applies a run's `limits`: into its unified `cgroup` for the controllers enabled there,
    /// and into v1 groups of its own named `name`, which the child joins before exec.
    /// Groups in `made` exist already (the worker made them ahead).
    public func prepare(run name: String, limits: RunLimits, cgroup: RunCgroup?,
                        made: Set<String> = []) throws(SystemError) -> RunLimitGroups? {
        if let cgroup, !unified.isEmpty {
            try cgroup.setLimits(limits, controllers: unified)
        }
        // A group only for a controller with a limit to enforce: a memory group costs its mkdir
        // and, at the run's end, its rmdir (the slowest step of a run's end on a hybrid host)
        // and two counter reads, for nothing when the job sets no MemoryMax=/MemoryHigh=.
        let parents = v1Parents.filter { Self.limits(limits, need: $0.controller) }
        guard !parents.isEmpty else { return nil }
        return try RunLimitGroups.create(name, in: parents, limits: limits, made: made)
    }

    /// The cgroup v1 `pids` directory of run groups, where runs get one (a hybrid host).
    public var pidsParent: String? {
        v1Parents.first { $0.controller == "pids" }?.directory
    }

    /// Whether `limits` has something for `controller` to enforce.
    public static func limits(_ limits: RunLimits, need controller: String) -> Bool {
        switch controller {
        case "pids": return limits.tasksMax != nil
        case "memory": return limits.memoryMax != nil || limits.memoryHigh != nil
        default: return false
        }
    }

    /// Removes a finished run's v1 groups, and retries groups that were busy before: through
    /// `worker` where there is one (off the loop), else here.
    public func release(_ groups: RunLimitGroups, through worker: RunCgroupWorker? = nil) {
        if !busyGroups.isEmpty { busyGroups = RunLimitGroups.removeStale(busyGroups) }
        if let worker {
            groups.closeJoinDescriptors()
            worker.remove(groups.removals)
        } else {
            busyGroups += groups.remove()
        }
        if !waitingGroups.isEmpty { removeWaitingGroups() }
    }

    /// Removes what of the waiting groups has emptied: the run groups first, then their parents.
    private func removeWaitingGroups() {
        waitingGroups = waitingGroups.filter { rmdir($0) != 0 && errno != ENOENT }
    }

    /// Removes the agent's v1 directories (at exit, once every run has ended), waiting up to a
    /// second for killed leftovers to finish exiting.
    public func removeParents() {
        busyGroups = RunLimitGroups.removeStale(busyGroups)
        removeWaitingGroups()
        for _ in 0..<100 where !busyGroups.isEmpty || !waitingGroups.isEmpty {
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
            busyGroups = RunLimitGroups.removeStale(busyGroups)
            removeWaitingGroups()
        }
        for parent in v1Parents { rmdir(parent.directory) }
    }

    /// `agentd-runs.PID` directories of agents that are gone (killed with SIGKILL), in either
    /// hierarchy: their run groups and themselves. A live agent's are left alone; a group with
    /// processes in it stays unless `killingLeftovers` (rmdir refuses it). Returns what is still
    /// busy, for a later retry.
    private static func removeGroupsOfGoneAgents(in directory: String, killingLeftovers: Bool,
                                                 unlessUnifiedIn unified: String?)
        -> (busy: [String], waiting: [String])
    {
        var busy: [String] = []
        var waiting: [String] = []
        for entry in CgroupFiles.subdirectories(of: directory) where entry.hasPrefix("agentd-runs.") {
            guard let pid = pid_t(entry.dropFirst("agentd-runs.".count)), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            let parent = directory + "/" + entry
            let runs = CgroupFiles.subdirectories(of: parent).filter { $0.hasPrefix("run-") }.map { parent + "/" + $0 }
            let recoveredElsewhere = unified.map { access($0 + "/" + entry, F_OK) == 0 } ?? false
            if killingLeftovers && !recoveredElsewhere {
                busy += RunLimitGroups.removeStale(runs)
                if rmdir(parent) != 0, errno == EBUSY { busy.append(parent) }
            } else {
                let left = runs.filter { rmdir($0) != 0 && errno == EBUSY }
                if rmdir(parent) != 0, errno == EBUSY, killingLeftovers { waiting += left + [parent] }
            }
        }
        return (busy, waiting)
    }
}
