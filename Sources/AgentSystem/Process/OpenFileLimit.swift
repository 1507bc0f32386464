// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The agent's open-file limit. Each live run holds a few descriptors (pidfd, two pipes,
/// cgroup files), so systemd's default soft limit of 1024 would stop launches at about 200
/// runs; the agent raises its soft limit to the hard one (agentd.service sets both to 65536).
public enum OpenFileLimit {
    /// Raises the soft RLIMIT_NOFILE to the hard limit; returns the limits now in force.
    @discardableResult
    public static func raiseSoftToHard() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}
