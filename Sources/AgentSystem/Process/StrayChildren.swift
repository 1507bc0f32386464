// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// The agent is a child subreaper: a plugin's daemonising grandchild that escaped its run's
/// process group (setsid) and was not in its cgroup when the cgroup was listed is re-parented
/// to the agent, and nothing else would ever reap it. This finds the agent's children from
/// `/proc/self/task/*/children` and reaps those that have exited, except the main processes of
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

    /// The agent's children, from every thread's `children` file (an orphan is re-parented to
    /// some thread of the subreaper).
    static func children() -> [pid_t] {
        guard let tasks = opendir("/proc/self/task") else { return [] }
        defer { closedir(tasks) }
        var pids: [pid_t] = []
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let tid = Int32(name) else { continue }
            let text = SmallFile.read("/proc/self/task/\(tid)/children", limit: 1 << 20) ?? ""
            pids += text.split(separator: " ").compactMap { pid_t($0.filter { $0 != "\n" }) }
        }
        return pids
    }
}
