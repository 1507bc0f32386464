// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// CLOCK_REALTIME: wall-clock time for display and persisted timestamps, never for scheduling
/// (it jumps when the time is set). Scheduling uses `MonotonicInstant`.
public enum WallClock {
    /// Nanoseconds since the Unix epoch.
    public static func now() -> Int64 {
        cshim_realtime_ns()
    }
}

/// CLOCK_BOOTTIME: like CLOCK_MONOTONIC but it keeps counting while the machine is suspended.
///
/// The difference between the two grows by the length of every suspend, which is how the agent
/// notices that it slept (DESIGN §6, catch-up after downtime or a suspend).
public enum BootClock {
    /// Nanoseconds since boot, suspends included.
    public static func now() -> UInt64 {
        cshim_boottime_ns()
    }

    /// How long the machine has been suspended since boot: CLOCK_BOOTTIME − CLOCK_MONOTONIC.
    /// Compare two readings to learn how long a suspend in between lasted.
    public static func suspendedTotal() -> Duration {
        // Read monotonic first so that the difference is never negative.
        let monotonic = cshim_monotonic_ns()
        let boot = cshim_boottime_ns()
        let gap = boot > monotonic ? boot - monotonic : 0
        return .seconds(Int64(gap / 1_000_000_000)) + .nanoseconds(Int64(gap % 1_000_000_000))
    }
}
