// SPDX-License-Identifier: Apache-2.0
/// What happened to one run, as the daemon tells its ``RunLifecycle``.
public enum RunLifecycleEvent: Hashable, Sendable {
    /// The run is launched now; `wallClock` is the wall time of the same instant, from which the
    /// SIGTERM time `AGENTD_DEADLINE` is computed. The plugin is spawned right after.
    case started(wallClock: SchedulerTime)
    /// The plugin could not be started (becomes `spawn-failed(reason)`).
    case spawnFailed(String)
    /// A `Condition…=` was false right before the spawn (becomes `skipped(condition)`): nothing
    /// was started.
    case skipped(String)
    /// A valid `PROGRESS=` line.
    case progress
    /// A condition the run needs was lost and its job says `OnConditionLost=pause`; `reason` is
    /// what status shows (`external power`).
    case frozen(reason: String)
    /// The condition returned.
    case thawed
    /// The scheduler's policy, `MaxPause=`, or `agentctl simulate expire` expires the run.
    case expire(ExpiryReason)
    /// As `.expire`, with the grace period shortened to at most `grace`: the machine is about
    /// to sleep and logind waits only so long (`InhibitDelayMaxUSec`).
    case expireWithin(ExpiryReason, grace: Duration)
    /// `agentctl cancel`.
    case cancel
    /// The agent is stopping (SIGTERM, SIGINT): its runs get the teardown and end `agent-restart`.
    case agentStopping
    /// The kernel enforced the run's `TasksMax=` or `MemoryMax=`: it ends `expired(limit)`
    /// unless it was already stopped for another reason. The daemon learns it from the run's
    /// cgroups at its end, before ``allProcessesGone``, when there is nothing left to signal;
    /// earlier, it would be an expiry with the usual teardown.
    case limitReached
    /// The main process was reaped.
    case mainExited(ProcessTermination)
    /// Every process of the run has gone — grandchildren too — and its output is drained.
    case allProcessesGone
    /// The daemon's timer for ``RunLifecycle/nextDeadline`` fired (early or late is harmless).
    case deadlineReached
}

/// What the daemon must do for a run, in order.
public enum RunAction: Hashable, Sendable {
    /// Send this signal to the run's whole process group, and cgroup where it has one.
    case signal(Int32)
    /// SIGKILL every process of the run (`cgroup.kill`, else its process group).
    case killAll
    /// Freeze every process of the run (cgroup freezer, else SIGSTOP to its group).
    case freeze
    /// Let a frozen run go on.
    case thaw
    /// The run's SIGTERM time moved (unix seconds, floored; nil: none), for `agentctl status`.
    /// At launch it is the value to put in `AGENTD_DEADLINE`.
    case setDeadline(Int64?)
    /// Spawn the run's command at this index (its `Exec=` line) into the run's cgroup: the
    /// one before it succeeded and every process of it is gone. A spawn that fails is
    /// ``RunLifecycleEvent/spawnFailed(_:)``; its exit, ``RunLifecycleEvent/mainExited(_:)``.
    case spawnCommand(Int)
    /// The run's one result: persist it and tell the scheduler. Emitted exactly once per run,
    /// and only when every process of it is gone (or it never started).
    case record(StopReason)
}

/// Why the agent is stopping a run (what `agentctl status` shows while it stops).
public enum RunStop: Hashable, Sendable, CustomStringConvertible {
    case expired(ExpiryReason)
    case cancelled
    /// The agent itself is stopping.
    case agentStopping

    /// `expired(max-runtime)`, `cancelled`, `agent stopping`.
    public var description: String {
        switch self {
        case .expired(let reason): StopReason.expired(reason).description
        case .cancelled: StopReason.cancelled.description
        case .agentStopping: "agent stopping"
        }
    }
}
