// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// Per-run limits at a run's end: what the kernel enforced is read from the run's cgroups once
/// (no polling while it runs), named in its log tail and made its stop reason.
extension RunSupervisor {
    /// The TasksMax= or MemoryMax= a run reached, named in its log tail; the caller tells the
    /// run's lifecycle, which makes it `expired(limit)` unless the agent had already stopped it
    /// for another reason (the first reason stands; the limit is still named). Its cgroup v1
    /// groups are removed here.
    func recordLimitHits(_ run: ActiveRun) -> [RunLimitHit] {
        var counters = run.process?.cgroup?.limitCounters ?? LimitCounters()
        if let groups = run.limitGroups { counters = counters.merged(with: groups.limitCounters) }
        releaseLimitGroups(run)
        let hits = RunLimitHit.hits(run.job.limits, counters)
        for hit in hits { run.state.appendLog(hit.logLine) }
        return hits
    }

    func releaseLimitGroups(_ run: ActiveRun) {
        guard let groups = run.limitGroups else { return }
        run.limitGroups = nil
        limitControllers?.release(groups, through: cgroupWorker)
    }

    /// For `agentctl status`: which limits hold here, and why the others do not.
    var limitEnforcement: [LimitEnforcement] { limitControllers?.enforcement ?? [] }
}
