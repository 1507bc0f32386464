// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The process's open-file limit (RLIMIT_NOFILE).
public enum DescriptorLimit {
    /// Raises the soft limit to the hard limit, so the control socket's connection limits and the
    /// runs' pipes — not a default of 1,024 — decide how many descriptors the agent may use.
    /// Returns the soft limit in force afterwards (nil if it cannot be read).
    @discardableResult
    public static func raiseToHardLimit() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
