// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// A run's lifecycle as the scheduler and people drive it: pause, thaw, expiry, cancel, stop;
/// each event goes to the run's ``RunLifecycle``, whose actions are carried out in order, with
/// the run's one timer kept at the lifecycle's next deadline.
extension RunSupervisor {
    // MARK: pausing (OnConditionLost=pause)

    /// Freezes a run whose condition is lost; its MaxRuntime and ProgressTimeout clocks stop.
    func freeze(_ id: RunID, because reason: String) {
        guard let run = live[id] else { return }
        send(.frozen(reason: reason), to: run)
    }

    /// Thaws a frozen run; its clocks go on from where they stopped, and the deadline status
    /// shows moves by the time it was frozen.
    func thaw(_ id: RunID) {
        guard let run = live[id], let pause = run.state.lifecycle.pause else { return }
        guard send(.thawed, to: run).contains(.thaw) else { return }
        let frozenFor = loop.now.sinceOrigin - pause.since
        log.notice("run \(id) of \(run.state.identifier): resumed after \(TimeSpan.format(frozenFor)) paused")
    }

    func setLowPriority(_ id: RunID, _ low: Bool) {
        live[id]?.process?.setLowPriority(low)
    }

    // MARK: stopping

    /// Starts the teardown of a run (SIGTERM and SIGCONT to all its processes, then SIGKILL after
    /// GracePeriod); false when it was already stopping or its main process has exited.
    @discardableResult
    func expire(_ id: RunID, reason: ExpiryReason) -> Bool {
        guard let run = live[id] else { return false }
        return startsStop(.expire(reason), run)
    }

    /// What a run's idle inhibitor is named by (`systemd-inhibit --list` shows it): its title,
    /// else its job's `Description=`, else its identifier.
    func inhibitorTitle(of id: RunID) -> String {
        guard let run = live[id] else { return id.description }
        return run.state.title ?? run.job.extra.description ?? run.state.identifier.rawValue
    }

    /// Expires a run with its grace period shortened to at most `graceAtMost` (before sleep).
    @discardableResult
    func expire(_ id: RunID, reason: ExpiryReason, graceAtMost: Duration) -> Bool {
        guard let run = live[id] else { return false }
        return startsStop(.expireWithin(reason, grace: graceAtMost), run)
    }

    /// Stops a run because a person asked (`agentctl cancel`), with the same teardown.
    @discardableResult
    func cancel(_ id: RunID) -> Bool {
        guard let run = live[id] else { return false }
        return startsStop(.cancel, run)
    }

    /// At shutdown: every live run gets the teardown and ends `agent-restart` (a cancelled one
    /// stays cancelled); `onIdle` fires when the last one is gone.
    func stopAll() {
        for run in liveRuns { send(.agentStopping, to: run) }
    }

    private func startsStop(_ event: RunLifecycleEvent, _ run: ActiveRun) -> Bool {
        let before = run.state.lifecycle.stop
        send(event, to: run)
        return before == nil && run.state.lifecycle.stop != nil
    }

    // MARK: the lifecycle

    /// Hands one event to a run's lifecycle at `now` (the loop's time unless given), carries out
    /// the actions in order, and keeps the run's one timer at the lifecycle's next deadline.
    @discardableResult
    func send(_ event: RunLifecycleEvent, to run: ActiveRun, at now: MonotonicInstant? = nil) -> [RunAction] {
        let instant = now ?? loop.now
        // Benchmarks read how late each teardown step went out, against when it was due.
        let due: MonotonicInstant? = switch event {
        case .deadlineReached: run.state.lifecycle.nextDeadline.map { .zero + $0 }
        case .expire, .expireWithin, .cancel, .agentStopping: instant
        default: nil
        }
        let stopBefore = run.state.lifecycle.stop
        let actions = run.state.handle(event, now: instant.sinceOrigin)
        if stopBefore == nil, let stop = run.state.lifecycle.stop { logStop(run, stop) }
        for action in actions { carry(action, for: run, due: due) }
        rearmLifecycleTimer(run)
        return actions
    }

    private func carry(_ action: RunAction, for run: ActiveRun, due: MonotonicInstant?) {
        switch action {
        case .signal(let signal):
            run.process?.signalAll(signal)
            logLateness(run, "sendSignal(\(signal))", due: due)
        case .killAll:
            run.process?.killAll()
            logLateness(run, "killAll", due: due)
        case .freeze:
            guard let method = run.process?.freeze() else { return }
            log.notice("run \(run.state.id) of \(run.state.identifier): paused (\(run.state.lifecycle.pausedReason ?? "")) by \(method == .cgroup ? "cgroup.freeze" : "SIGSTOP")")
        case .thaw:
            run.process?.thaw()
        case .setDeadline:
            break  // status reads it from the run's state
        case .spawnCommand:
            spawnNextCommand(run)
        case .record(let stopReason):
            finish(run, stopReason: stopReason)
        }
    }

    private func logStop(_ run: ActiveRun, _ stop: RunStop) {
        let prefix = "run \(run.state.id) of \(run.state.identifier)"
        switch stop {
        case .expired(let reason):
            log.notice("\(prefix): expiring (\(reason.rawValue)), SIGTERM and SIGCONT, then SIGKILL after \(TimeSpan.format(run.state.lifecycle.teardownGrace ?? run.job.gracePeriod))",
                             fields: LogFields(.runExpired, identifier: run.state.identifier.rawValue, runID: run.state.id.description,
                                               stopReason: StopReason.expired(reason).description))
        case .cancelled:
            log.notice("\(prefix): cancelled")
        case .agentStopping:
            log.notice("\(prefix): stopping with the agent")
        }
    }

    private func logLateness(_ run: ActiveRun, _ what: String, due: MonotonicInstant?) {
        guard logsLateness, let due else { return }
        // Measured right after sending.
        let late = due.duration(to: readClock().monotonic)
        log.info("run \(run.state.id): \(what) sent \(late.components.seconds * 1_000_000 + late.components.attoseconds / 1_000_000_000_000) us after its due time")
    }

    /// One timer per run, moved only when the lifecycle's next deadline moves (a PROGRESS= line
    /// moves none).
    private func rearmLifecycleTimer(_ run: ActiveRun) {
        let next = run.state.lifecycle.nextDeadline
        guard next != run.lifecycleTimerDue else { return }
        if let token = run.lifecycleTimer { loop.cancel(token) }
        run.lifecycleTimer = nil
        run.lifecycleTimerDue = next
        guard let next else { return }
        let id = run.state.id
        run.lifecycleTimer = loop.schedule(at: .zero + next) { [unowned self] in
            guard let run = self.live[id] else { return }
            run.lifecycleTimer = nil
            run.lifecycleTimerDue = nil
            self.send(.deadlineReached, to: run)
        }
    }

}

extension MonotonicInstant {
    /// The instant as the run lifecycle counts time: a `Duration` since the clock's origin.
    var sinceOrigin: Duration { MonotonicInstant.zero.duration(to: self) }
}
