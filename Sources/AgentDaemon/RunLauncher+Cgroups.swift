// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc

/// The runs' cgroups and per-run limits: the parents made at start, a run's own cgroup (made
/// ahead by the worker where it could), its cgroup v1 limit groups, and what the kernel
/// enforced, read once at its end (no polling while it runs).
extension RunLauncher {
    func setUpCgroups() {
        let hierarchy = CgroupHierarchy.detect()
        if let hierarchy {
            do {
                let parent = try hierarchy.makeRunsParent(named: "agentd-runs.\(getpid())")
                cgroupParent = parent
                log.info("runs get cgroups under \(parent)")
            } catch {
                log.notice("cgroup \(hierarchy.ownDirectory) is not writable (\(error)): runs are tracked by process group only")
            }
        } else {
            log.notice("no cgroup v2 hierarchy: runs are tracked by process group only")
        }
        setUpLimits(hierarchy)
        let pidsParent = limitControllers?.pidsParent
        if cgroupParent != nil || pidsParent != nil {
            cgroupWorker = RunCgroupWorker(layout: .init(unifiedParent: cgroupParent, pidsParent: pidsParent,
                                                         name: { "run-\(RunID($0))" }))
        }
    }

    private func setUpLimits(_ hierarchy: CgroupHierarchy?) {
        if let files = OpenFileLimit.raiseSoftToHard(), files.soft < 4096 {
            log.warning("open files limited to \(files.soft): about \(files.soft / 5) runs can start at once; raise LimitNOFILE= (agentd.service sets 65536)")
        }
        let controllers = LimitControllers.setUp(unified: hierarchy, runsParent: cgroupParent,
                                                 groupName: "agentd-runs.\(getpid())")
        limitControllers = controllers
        let summary = LimitEnforcement.summary(controllers.enforcement)
        let text = "per-run limits: " + (summary.enforced + summary.notEnforced).joined(separator: ", ")
        if summary.notEnforced.isEmpty { log.info(text) } else { log.notice(text) }
    }

    /// The run's cgroup (nil where there is none: its process group is tracked instead) and its
    /// limit groups, before the spawn.
    func prepareCgroups(_ run: ActiveRun) -> Result<RunCgroup?, LaunchProblem> {
        let job = run.job
        // Made ahead by the worker where it could (the loop then waits for no cgroup lock).
        let made = cgroupWorker?.take(run.state.id.number)
        var cgroup: RunCgroup?
        if let parent = cgroupParent {
            do {
                cgroup = try RunCgroup.create(parent: parent, name: "run-\(run.state.id)",
                                              made: made?.unified != nil, remover: cgroupWorker,
                                              controllers: limitControllers?.unified ?? [])
            } catch {
                log.warning("run \(run.state.id): no cgroup (\(error)); tracking its process group only")
                if let unused = made?.unified { cgroupWorker?.discard(unused) }
            }
        }
        if let unused = made?.pidsGroup, !LimitControllers.limits(job.limits, need: "pids") {
            cgroupWorker?.discard(unused)
        }
        do {
            run.limitGroups = try limitControllers?.prepare(run: "run-\(run.state.id)", limits: job.limits, cgroup: cgroup,
                                                            made: Set([made?.pidsGroup].compactMap { $0 }))
        } catch {
            cgroup?.remove()
            return .failure(LaunchProblem("per-run limits: \(error)"))
        }
        return .success(cgroup)
    }

    /// The TasksMax= or MemoryMax= a run reached, named in its log tail; the caller tells the
    /// run's lifecycle, which makes it `expired(limit)` unless the agent had already stopped it
    /// for another reason (the first reason stands; the limit is still named). Its cgroup v1
    /// groups are removed here.
    func limitHits(_ run: ActiveRun) -> [RunLimitHit] {
        var counters = run.process?.limitCounters ?? LimitCounters()
        if let groups = run.limitGroups { counters = counters.merged(with: groups.limitCounters) }
        releaseLimits(run)
        let hits = RunLimitHit.hits(run.job.limits, counters)
        for hit in hits { run.state.appendLog(hit.logLine) }
        return hits
    }

    func releaseLimits(_ run: ActiveRun) {
        run.keptCgroup?.remove()
        run.keptCgroup = nil
        guard let groups = run.limitGroups else { return }
        run.limitGroups = nil
        limitControllers?.release(groups, through: cgroupWorker)
    }

    /// For `agentctl status`: which limits hold here, and why the others do not.
    var limitEnforcement: [LimitEnforcement] { limitControllers?.enforcement ?? [] }

    /// Reaps exited children that are no live run's main process (``StrayChildren``).
    func reapStrays(keeping: Set<Int32>) {
        StrayChildren.reap(keeping: keeping)
    }

    /// At exit, once every run has ended: the runs' parent cgroups go (idempotent).
    func removeCgroups() {
        cgroupWorker?.finish()
        cgroupWorker = nil
        if let parent = cgroupParent { CgroupHierarchy.removeRunsParent(parent) }
        cgroupParent = nil
        limitControllers?.removeParents()
        limitControllers = nil
    }
}
