// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// How a run's processes are started and what they leave is cleaned up: the port under
/// ``RunSupervisor``. ``RunLauncher`` is the real one (plugin checks, cgroups, limits, clone);
/// daemon scripts use a virtual one that records each call and starts nothing.
protocol RunLaunching: AnyObject {
    /// This boot's id, recorded with each run; nil when it cannot be read.
    var bootID: String? { get }
    /// For `agentctl status`: which per-run limits hold here.
    var limitEnforcement: [LimitEnforcement] { get }
    /// Starts `run`'s plugin with `arguments` after `Exec=`; `events` hears its output, the exit
    /// of its main process and the end of its last process.
    func start(_ run: ActiveRun, arguments: [String], events: PluginProcess.Callbacks) -> Result<any RunProcess, LaunchProblem>
    /// What a child that failed before its execve says in `spawn-failed(…)`.
    func problem(of failure: SpawnFailure, job: JobDefinition) -> LaunchProblem
    /// The per-run limits `run` reached, read once at its end; its extra limit groups are released.
    func limitHits(_ run: ActiveRun) -> [RunLimitHit]
    /// Releases `run`'s extra limit groups (cgroup v1), if any.
    func releaseLimits(_ run: ActiveRun)
    /// Kills what a run of an earlier agent left; returns what was done, for the log.
    func recover(_ place: RecordedRunPlace) -> String
    /// Once the recorded runs (`recorded`) are recovered: kills what else the dead agent's runs
    /// left — runs it never recorded, numbered above `highest` — in its cgroups or, without them,
    /// found by their environment (not once this agent `launchedAny` run), and notes this agent's
    /// own runs cgroup in the state directory for the next one. Returns the runs killed, with
    /// what was done.
    func recoverUnrecorded(after recorded: [RecordedRunPlace], highest: UInt64, launchedAny: Bool) -> [(run: RunID, done: String)]
    /// At exit, once every run has ended: the runs' parent cgroups go.
    func removeCgroups()
    /// Reaps exited children the agent did not start (orphans re-parented to it, a child
    /// subreaper), leaving the main processes in `keeping` to their pidfds.
    func reapStrays(keeping: Set<Int32>)
}
