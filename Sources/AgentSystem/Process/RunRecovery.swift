// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// Carries out ``LeftoverPlan`` for the runs a dead agent left live: kills their cgroups and the
/// verified members of their process groups, and removes each killed cgroup once the kernel
/// says it is empty, on the event loop.
public final class RunRecovery {
    private let loop: EventLoop
    private let log: Logger
    /// This boot's id; nil when it cannot be read (then only cgroups are used).
    public let currentBoot: String?
    private let cgroupMount: String?
    /// The live agent's own parent of run cgroups, never removed here.
    private let ownParent: String?
    /// Killed cgroups waiting to be empty.
    private var removals: [String: LeftoverCgroup] = [:]

    public init(loop: EventLoop, log: Logger, currentBoot: String?, cgroupMount: String?, ownParent: String?) {
        self.loop = loop
        self.log = log
        self.currentBoot = currentBoot
        self.cgroupMount = cgroupMount
        self.ownParent = ownParent
    }

    /// Killed cgroups not yet empty and removed.
    public var pendingRemovals: Int { removals.count }

    /// Kills what `run` left; returns what was done, for the log line of its `agent-restart`.
    public func recover(_ run: RecordedRunPlace) -> String {
        switch LeftoverPlan.plan(for: run, currentBoot: currentBoot, cgroupMount: cgroupMount) {
        case .killNothing(let because):
            return "nothing killed: \(because)"
        case .kill(let cgroup, let group):
            var done: [String] = []
            if let cgroup { done.append(killCgroup(cgroup, of: run)) }
            if let group {
                let outcome = LeftoverProcesses.killVerified(processGroup: group, runID: run.runID,
                                                             identifier: run.identifier)
                done.append("\(outcome.killed.count) verified process(es) of process group \(group) killed"
                    + (outcome.spared.isEmpty ? "" : ", \(outcome.spared.count) not the run's left alone"))
            }
            return done.joined(separator: "; ")
        }
    }

    /// Kills what is left in a dead agent's runs parents once its `recorded` runs are recovered
    /// (``UnrecordedLeftovers``): the `noted` parent (the state directory's note) and those the
    /// recorded runs' cgroups name. Returns the runs killed, with what was done.
    public func recoverUnrecorded(noted: String?, after recorded: [RecordedRunPlace]) -> [(run: RunID, done: String)] {
        let fromRecords = recorded.compactMap { place in
            place.cgroup.flatMap { UnrecordedLeftovers.runsParent(ofRunCgroup: $0, runID: place.runID, under: cgroupMount) }
        }
        let recordedIDs = Set(recorded.map(\.runID))
        var seen: Set<String> = []
        return ([noted].compactMap { $0 } + fromRecords).filter { seen.insert($0).inserted }.flatMap { parent in
            sweep(parent, recorded: recordedIDs)
        }
    }

    /// One runs parent: each run cgroup still holding processes is killed, except those of the
    /// `recorded` run ids (their records decide); empty ones are removed. Nothing happens when
    /// `parent` is not a runs parent of an agent that is gone.
    private func sweep(_ parent: String, recorded: Set<String>) -> [(run: RunID, done: String)] {
        guard let pid = UnrecordedLeftovers.agentPID(ofRunsParent: parent, under: cgroupMount), parent != ownParent,
              pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { return [] }
        var killed: [(run: RunID, done: String)] = []
        for run in UnrecordedLeftovers.runs(amongSubdirectories: CgroupFiles.subdirectories(of: parent)) {
            let path = parent + "/run-\(run)"
            guard !recorded.contains(run.description), removals[path] == nil else { continue }
            if rmdir(path) == 0 || errno == ENOENT { continue } // empty: nothing of the run is left
            let place = RecordedRunPlace(runID: run.description, identifier: "", bootID: currentBoot, cgroup: path,
                                         processGroup: nil)
            killed.append((run, killCgroup(path, of: place)))
        }
        if killed.isEmpty { rmdir(parent) }
        return killed
    }

    /// Where runs had no cgroup: kills the processes of runs above `highest` that name `socket`
    /// (``LeftoverProcesses/killUnrecorded(socket:above:procRoot:)``), with what was done per run.
    public func recoverUnrecordedProcesses(socket: String, above highest: UInt64) -> [(run: RunID, done: String)] {
        LeftoverProcesses.killUnrecorded(socket: socket, above: highest).sorted { $0.key < $1.key }.map { run, pids in
            (run, "\(pids.count) process(es) killed (found by AGENTD_RUN_ID=\(run) and this agent's socket in their "
                + "environment)")
        }
    }

    private func killCgroup(_ path: String, of run: RecordedRunPlace) -> String {
        let leftover: LeftoverCgroup
        do {
            guard let opened = try LeftoverCgroup(path: path, loop: loop) else { return "cgroup \(path) already gone" }
            leftover = opened
        } catch {
            return "cgroup \(path) not usable (\(error))"
        }
        leftover.killAll()
        removals[path] = leftover
        leftover.removeWhenEmpty(keepParent: ownParent) { [unowned self] result in
            self.removals[path] = nil
            switch result {
            case .success: self.log.info("run \(run.runID): leftover cgroup \(path) is empty and removed")
            case .failure(let error): self.log.warning("run \(run.runID): leftover cgroup not removed: \(error)")
            }
        }
        return "cgroup \(path) killed"
    }
}
