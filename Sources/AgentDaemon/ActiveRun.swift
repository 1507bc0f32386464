// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// One live run inside the daemon: the pure `LiveRun` state, its processes, and its timers.
final class ActiveRun {
    var state: LiveRun
    let job: JobDefinition
    var process: PluginProcess?
    /// Its cgroup v1 pids/memory groups on a hybrid host (per-run limits).
    var limitGroups: RunLimitGroups?
    let startedAtMilliseconds: Int64
    let startedAt: MonotonicInstant
    var teardown: TeardownProgress?
    var teardownTimer: TimerToken?
    var maxRuntimeTimer: TimerToken?
    var progressTimer: TimerToken?
    /// Last PROGRESS= line (or launch), for continued runs' ProgressTimeout.
    var lastProgressAt: MonotonicInstant
    var checkpointDirty = false
    var checkpointTimer: TimerToken?
    /// `TITLE=` changed since it was last written to the store, and the 1 s write spacing.
    var titleDirty = false
    var titleTimer: TimerToken?
    /// Frozen by `OnConditionLost=pause` since then, and why (`paused: external power`).
    var pausedSince: MonotonicInstant?
    var pausedReason: String?
    /// Time spent frozen so far: the `MaxRuntime=` clock stops while frozen.
    var pausedTotal: Duration = .zero
    /// The whole percent last reported to the scheduler (it hears of changes, not every line).
    var reportedPercent: Int?

    init(state: LiveRun, job: JobDefinition, startedAtMilliseconds: Int64, startedAt: MonotonicInstant) {
        self.state = state
        self.job = job
        self.startedAtMilliseconds = startedAtMilliseconds
        self.startedAt = startedAt
        self.lastProgressAt = startedAt
    }
}
