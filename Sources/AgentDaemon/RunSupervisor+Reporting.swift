// SPDX-License-Identifier: Apache-2.0
import AgentCore

extension RunSupervisor {
    /// Connects each run's start, end, progress and directives to the event stream and the
    /// scheduler, in the one order the agent keeps: the event first, then the agent's other
    /// observers (`published`: the service status), then the scheduler — so what it does next
    /// (the queued run it starts) is published after the run that made room for it. `ended`
    /// sees each result first (metrics). The agent and the daemon scripts both wire runs here.
    func report(to events: EventBus, scheduling: SchedulerDriver,
                ended: @escaping (RunEnd) -> Void = { _ in }, published: @escaping () -> Void = {}) {
        onRunStarted = { [unowned events, unowned scheduling] job, run, reason in
            events.runStarted(job: job, run: run, reason: reason)
            published()
            scheduling.handle(.runStarted(job, run, reason: reason))
        }
        onRunEnded = { [unowned events, unowned scheduling] end in
            ended(end)
            events.runEnded(job: end.job, run: end.run, stop: end.stop, status: end.status, result: end.result)
            published()
            scheduling.handle(.runEnded(end.job, end.run, end.stop, result: end.result))
        }
        onRunProgress = { [unowned scheduling] run, fraction in scheduling.handle(.runProgress(run, fraction)) }
        // Held strongly (the event bus refers to nothing of the supervisor's): these run at every
        // output line, and an unowned reference is checked at each use.
        onRunDirective = { run, directive in events.runDirective(run, directive) }
        directivesFollowed = { events.isFollowed }
        onRunOutput = { run, line in events.runOutput(run, line) }
    }
}
