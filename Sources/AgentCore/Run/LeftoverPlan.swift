// SPDX-License-Identifier: Apache-2.0
/// Where a run that was live when the agent stopped had its processes, as the state recorded it.
public struct RecordedRunPlace: Sendable, Hashable {
    public var runID: String
    public var identifier: String
    /// The boot id when it started; nil for a run recorded before boot ids were.
    public var bootID: String?
    /// Its cgroup directory, if it had one.
    public var cgroup: String?
    public var processGroup: Int32?

    public init(runID: String, identifier: String, bootID: String?, cgroup: String?, processGroup: Int32?) {
        self.runID = runID
        self.identifier = identifier
        self.bootID = bootID
        self.cgroup = cgroup
        self.processGroup = processGroup
    }
}

/// What a restarted agent does about one such run (DESIGN §10): kill what is left of it, and
/// nothing that is not. Pure: the boot ids and paths come in, the adapter carries it out.
public enum LeftoverPlan: Sendable, Hashable {
    /// Kill nothing; `because` says why, for the log.
    case killNothing(because: String)
    /// Kill everything in `cgroup` (nil: none to use), and those members of `processGroup`
    /// (nil: none) whose environment names this run (`AGENTD_RUN_ID`, `AGENTD_IDENTIFIER`).
    case kill(cgroup: String?, verifiedProcessGroup: Int32?)

    /// - Parameters:
    ///   - currentBoot: this boot's id; nil when it cannot be read.
    ///   - cgroupMount: where the cgroup v2 hierarchy is mounted here; nil when there is none.
    ///
    /// A run of an earlier boot left nothing: its process group number and cgroup path now
    /// belong to whoever has them. A run of this boot is killed through its cgroup and through
    /// its process group, where only its own processes are touched. When the boot cannot be told
    /// (a run recorded before boot ids were, or no boot id now), only an existing cgroup of the
    /// recorded name is used: a cgroup cannot outlive a boot, but a process group number can be
    /// taken again.
    public static func plan(for run: RecordedRunPlace, currentBoot: String?, cgroupMount: String?) -> LeftoverPlan {
        if let recorded = run.bootID, let currentBoot, recorded != currentBoot {
            return .killNothing(because: "it ran in an earlier boot (\(recorded))")
        }
        let sameBoot = run.bootID != nil && run.bootID == currentBoot
        let cgroup = run.cgroup.flatMap { isRunCgroup($0, runID: run.runID, under: cgroupMount) ? $0 : nil }
        let group = sameBoot ? run.processGroup.flatMap { $0 > 1 ? $0 : nil } : nil
        if cgroup == nil && group == nil {
            if run.cgroup != nil && cgroup == nil {
                return .killNothing(because: "its recorded cgroup \(run.cgroup ?? "") is not a run cgroup of this agent")
            }
            return .killNothing(because: sameBoot ? "it has no recorded processes"
                : "its boot is unknown and it had no cgroup")
        }
        return .kill(cgroup: cgroup, verifiedProcessGroup: group)
    }

    /// Whether `path` can be a run cgroup the agent made for `runID`:
    /// `MOUNT/…/agentd-runs.PID/run-RUNID`. A recorded path is only data; writing `cgroup.kill`
    /// of any other cgroup (the root, a service's) would kill what is not the run's.
    public static func isRunCgroup(_ path: String, runID: String, under mount: String?) -> Bool {
        guard let components = components(of: path, under: mount), components.count >= 2,
              components.last == "run-\(runID)" else { return false }
        return components[components.endIndex - 2].hasPrefix("agentd-runs.")
    }

    /// `path`'s components below `mount`, or nil when it is not strictly below it or has an
    /// empty, `.` or `..` component (a path that could lead elsewhere than it says).
    static func components(of path: String, under mount: String?) -> [Substring]? {
        guard let mount, path.hasPrefix(mount + "/") else { return nil }
        let components = Array(path.dropFirst(mount.count).split(separator: "/", omittingEmptySubsequences: false)
            .dropFirst())
        guard !components.isEmpty, !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            return nil
        }
        return components
    }
}

/// The run cgroups of a dead agent that no record leads to (DESIGN §10): a run started and
/// SIGKILLed with the agent before its start record was committed, or a straggler of a run whose
/// end was recorded before its cgroup was emptied. The recorded runs are recovered through their
/// records first; whatever is still in the dead agent's runs parent is then killed as well. The
/// parent comes from the state directory's note of the agent that used it last, or from a
/// recorded run's cgroup path.
public enum UnrecordedLeftovers {
    /// The pid in `path`'s name when `path` is a runs parent the agent makes,
    /// `MOUNT/…/agentd-runs.PID` (a noted path is only data, as a recorded one is).
    public static func agentPID(ofRunsParent path: String, under mount: String?) -> Int32? {
        guard let last = LeftoverPlan.components(of: path, under: mount)?.last, last.hasPrefix("agentd-runs."),
              let pid = Int32(last.dropFirst("agentd-runs.".count)), pid > 1,
              String(pid) == last.dropFirst("agentd-runs.".count) else { return nil }
        return pid
    }

    /// The runs parent of a recorded run cgroup (`…/agentd-runs.PID/run-RUNID`), or nil.
    public static func runsParent(ofRunCgroup path: String, runID: String, under mount: String?) -> String? {
        guard LeftoverPlan.isRunCgroup(path, runID: runID, under: mount), let slash = path.lastIndex(of: "/") else {
            return nil
        }
        return String(path[..<slash])
    }

    /// The runs among a runs parent's subdirectory `names`: `run-RUNID` with a run id spelt as
    /// the agent spells it, in run order.
    public static func runs(amongSubdirectories names: [String]) -> [RunID] {
        names.compactMap { name in
            name.hasPrefix("run-") ? RunID(parsing: String(name.dropFirst(4))) : nil
        }.sorted()
    }
}
