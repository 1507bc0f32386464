// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// The agent is a child subreaper: a plugin's daemonising grandchild that escaped its run's
/// process group (setsid) and was not in its cgroup when the cgroup was listed is re-parented
/// to the agent, and nothing else would ever reap it. This finds the agent's children from
/// `/proc/thread-self/children` and reaps those that have exited, except the main processes of
/// live runs (their pidfds are theirs to reap: reaping one here would lose its exit status).
public enum StrayChildren {
    /// Reaps every exited child not in `keeping`; returns how many. Never waits.
    @discardableResult
    public static func reap(keeping: Set<pid_t>) -> Int {
        var reaped = 0
        for child in children() where !keeping.contains(child) && cshim_reap_pid(child) == 1 {
            reaped += 1
        }
        return reaped
    }

    /// The calling thread's children, from `/proc/thread-self/children`: the loop spawns every
    /// run, and the kernel re-parents an orphan to the subreaper's thread its ancestor was the
    /// child of (the first of its threads still alive), so the loop's list holds every stray.
    /// One file instead of a listing of every thread's (a run's end reads it).
    static func children() -> [pid_t] {
        let text = SmallFile.read("/proc/thread-self/children", limit: 1 << 20) ?? ""
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
    }
}
