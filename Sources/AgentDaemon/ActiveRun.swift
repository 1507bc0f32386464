// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// One live run inside the daemon: the pure `LiveRun` state (with its lifecycle), its processes,
/// and its timers — one for the lifecycle's next deadline, others spacing checkpoint and title
/// writes.
final class ActiveRun {
    var state: LiveRun
    let job: JobDefinition
    var process: (any RunProcess)?
    /// Its cgroup v1 pids/memory groups on a hybrid host (per-run limits).
    var limitGroups: RunLimitGroups?
    /// The run's cgroup while more than one `Exec=` line runs in it: kept between commands,
    /// removed when the run's limits are released at its end.
    var keptCgroup: RunCgroup?
    /// What `submit` gave after `--`: appended to each command.
    var arguments: [String] = []
    /// An `OnFailure=` run's: the previous run's output tail, written to a file at its spawn.
    var previousOutput: [String]?
    let startedAtMilliseconds: Int64
    /// The one timer at `state.lifecycle.nextDeadline`, and the deadline it is set for.
    var lifecycleTimer: TimerToken?
    var lifecycleTimerDue: Duration?
    var checkpointDirty = false
    var checkpointTimer: TimerToken?
    /// `TITLE=` changed since it was last written to the store, and the 1 s write spacing.
    var titleDirty = false
    var titleTimer: TimerToken?

    init(state: LiveRun, job: JobDefinition, startedAtMilliseconds: Int64) {
        self.state = state
        self.job = job
        self.startedAtMilliseconds = startedAtMilliseconds
    }
}
