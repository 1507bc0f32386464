// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// What the supervisor does to a started run's processes: the port between a run's lifecycle
/// and the kernel. ``PluginProcess`` (pidfd, pipes, cgroup) is the real one; daemon scripts use
/// a virtual one that writes each call down.
protocol RunProcess: AnyObject {
    var pid: Int32 { get }
    var processGroup: Int32 { get }
    /// The run's cgroup, when it has one.
    var cgroupPath: String? { get }
    /// Output lines cut at 4096 bytes so far.
    var truncatedLines: Int { get }
    /// Why the child never reached its execve, once it reported that.
    var spawnFailure: SpawnFailure? { get }
    /// What the kernel counted against the run's cgroup limits (read at its end).
    var limitCounters: LimitCounters { get }
    /// The signal to every process of the run (its cgroup, else its process group).
    func signalAll(_ signal: Int32)
    /// SIGKILL to every process of the run.
    func killAll()
    /// Stops the run's processes; nil when there is nothing to freeze.
    func freeze() -> PluginProcess.FreezeMethod?
    func thaw()
    /// Lowers or restores the run's CPU weight (`setCPUWeight`).
    func setLowPriority(_ low: Bool)
}

extension PluginProcess: RunProcess {
    var cgroupPath: String? { cgroup?.path }
    var limitCounters: LimitCounters { cgroup?.limitCounters ?? LimitCounters() }
}
