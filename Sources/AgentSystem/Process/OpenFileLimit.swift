// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The agent's open-file limit. Each live run holds a few descriptors (pidfd, two pipes,
/// cgroup files), so systemd's default soft limit of 1024 would stop launches at about 200
/// runs; the agent raises its soft limit to the hard one (agentd.service sets both to 65536).
/// Runs get the soft limit the agent was started with back: a program written for the usual
/// 1024 (select() cannot take a higher descriptor) runs under agentd as under systemd or cron.
public enum OpenFileLimit {
    /// The soft limit when the agent started, read before the agent raised it.
    public static let inheritedSoftLimit: UInt64? = current()?.soft

    /// Raises the soft RLIMIT_NOFILE to the hard limit; returns the limits now in force.
    @discardableResult
    public static func raiseSoftToHard() -> (soft: UInt64, hard: UInt64)? {
        _ = inheritedSoftLimit  // read before the first raise
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// The soft limit a run gets: the inherited one when the agent raised its own above it.
    public static var forRuns: UInt64? {
        guard let inherited = inheritedSoftLimit, let now = current(), inherited < now.soft else { return nil }
        return inherited
    }

    private static func current() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}
