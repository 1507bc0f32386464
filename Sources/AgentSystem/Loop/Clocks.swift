// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// The three clocks as read together once per loop iteration (`EventLoop.clock`), so that every
/// handler of one iteration, and every answer built in it, sees one "now".
public struct ClockReading: Sendable, Hashable {
    /// CLOCK_MONOTONIC: timers and elapsed time.
    public var monotonic: MonotonicInstant
    /// CLOCK_BOOTTIME nanoseconds: monotonic plus the time spent suspended.
    public var boottime: UInt64
    /// CLOCK_REALTIME nanoseconds since the Unix epoch: the wall clock, which can be stepped.
    public var realtime: Int64

    public init(monotonic: MonotonicInstant, boottime: UInt64, realtime: Int64) {
        self.monotonic = monotonic
        self.boottime = boottime
        self.realtime = realtime
    }

    /// Reads the three clocks now, back to back.
    public static func read() -> ClockReading {
        var monotonic: UInt64 = 0
        var boottime: UInt64 = 0
        var realtime: Int64 = 0
        cshim_read_clocks(&monotonic, &boottime, &realtime)
        return ClockReading(monotonic: MonotonicInstant(nanoseconds: monotonic), boottime: boottime,
                            realtime: realtime)
    }

    /// The wall clock in unix seconds.
    public var realtimeSeconds: Double { Double(realtime) / 1_000_000_000 }

    /// The wall clock in milliseconds since the epoch (the store's timestamps).
    public var realtimeMilliseconds: Int64 { realtime / 1_000_000 }

    /// How long the machine has been suspended since boot: CLOCK_BOOTTIME − CLOCK_MONOTONIC.
    public var suspendedTotal: Duration {
        let mono = monotonic.nanoseconds
        return .nanoseconds(boottime > mono ? Int64(clamping: boottime - mono) : 0)
    }

    /// CLOCK_REALTIME − CLOCK_BOOTTIME: constant while the clock only ticks (suspends included,
    /// since both count them); it changes by exactly the size of a step of the wall clock (and by
    /// the slow drift of NTP slewing).
    public var wallOffset: Duration {
        let boot = Int64(clamping: boottime)
        let (difference, overflow) = realtime.subtractingReportingOverflow(boot)
        return .nanoseconds(overflow ? (realtime < 0 ? Int64.min : Int64.max) : difference)
    }
}

/// CLOCK_REALTIME: wall-clock time for display and persisted timestamps, never for scheduling
/// (it jumps when the time is set). Scheduling uses `MonotonicInstant`. On the loop thread read
/// `EventLoop.clock.realtime` instead: one reading per iteration.
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
