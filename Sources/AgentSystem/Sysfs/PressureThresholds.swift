// SPDX-License-Identifier: Apache-2.0
/// A PSI resource: a file under `PROC/pressure/`.
public enum PressureResource: String, Sendable, Hashable, CaseIterable {
    case cpu, memory, io
}

/// How a `PressureWatch` learns about pressure, for `agentctl status` to say once.
public enum PressureSource: Sendable, Hashable {
    /// A PSI trigger: the kernel wakes the loop (EPOLLPRI) when pressure starts.
    case trigger
    /// No trigger (refused by the kernel, or a fake proc root): the file is read at sparse
    /// intervals, only while pressure is on or the daemon asks for samples.
    case sampled
    /// No readable PSI file (kernel without PSI, `psi=0`): pressure is never reported.
    case unavailable
}

/// When pressure counts as on and off for one resource.
///
/// The trigger and the on-threshold say when pressure starts; the off-threshold (lower, for
/// hysteresis) says when it has ended. Windows are 2 s: the kernel accepts a multiple of 2 s
/// from unprivileged users too (Linux 6.5+), and root may use any window of 0.5…10 s.
public struct PressureThresholds: Sendable, Hashable {
    /// Trigger: stall time (µs of `some` stall) within `windowMicroseconds` that fires it.
    public var stallMicroseconds: Int
    /// Trigger window in µs.
    public var windowMicroseconds: Int
    /// `some avg10` (percent) at or above which a sampled reading turns pressure on.
    public var onAvg10: Double
    /// `some avg10` (percent) below which pressure turns off again.
    public var offAvg10: Double

    public init(stallMicroseconds: Int, windowMicroseconds: Int, onAvg10: Double, offAvg10: Double) {
        self.stallMicroseconds = stallMicroseconds
        self.windowMicroseconds = windowMicroseconds
        self.onAvg10 = onAvg10
        self.offAvg10 = offAvg10
    }

    /// Memory pressure (policy: defer discretionary work, expire the least-progress continued
    /// run): some task stalled on memory for 10 % of a 2 s window (200 ms: reclaim or swap-in
    /// is hurting interactive work), on at `some avg10` ≥ 10 %, off below 5 %.
    public static let memory = PressureThresholds(
        stallMicroseconds: 200_000, windowMicroseconds: 2_000_000, onAvg10: 10, offAvg10: 5)

    /// CPU busy (`RequiresIdle=` is not met): runnable tasks waited for a CPU 20 % of a 2 s
    /// window, on at `some avg10` ≥ 20 %, off below 10 %. CPU `some` pressure measures
    /// contention, not load: one busy process on an otherwise idle multi-core machine is not
    /// "busy", more runnable tasks than CPUs are.
    public static let cpu = PressureThresholds(
        stallMicroseconds: 400_000, windowMicroseconds: 2_000_000, onAvg10: 20, offAvg10: 10)

    /// I/O pressure (shown by `agentctl status`; no policy row uses it yet): some task waited on
    /// I/O 20 % of a 2 s window, on at 20 %, off below 10 %.
    public static let io = PressureThresholds(
        stallMicroseconds: 400_000, windowMicroseconds: 2_000_000, onAvg10: 20, offAvg10: 10)

    /// The documented thresholds of `resource`.
    public static func standard(for resource: PressureResource) -> PressureThresholds {
        switch resource {
        case .cpu: cpu
        case .memory: memory
        case .io: io
        }
    }

    /// The trigger as written to the PSI file: `some STALL WINDOW`.
    public var triggerText: String { "some \(stallMicroseconds) \(windowMicroseconds)" }
}

/// How often a `PressureWatch` reads its file when it must.
public struct PressureTimings: Sendable, Hashable {
    /// While pressure is on: re-read until `some avg10` falls below the off-threshold (PSI
    /// triggers signal only the start of pressure). The kernel updates the averages every 2 s.
    public var recheck: Duration
    /// Sampled source only, and only while `wantsQuietSamples` is set: how often a quiet
    /// resource is read to notice pressure starting.
    public var quietSample: Duration
    /// Trigger source only: how long after a first trigger a second one (or the averages) must
    /// show that the pressure lasts before it counts as on. One and a half windows: the kernel
    /// fires a trigger once a window while the stall goes on.
    public var confirm: Duration

    public init(recheck: Duration = .seconds(2), quietSample: Duration = .seconds(10), confirm: Duration = .seconds(3)) {
        self.recheck = recheck
        self.quietSample = quietSample
        self.confirm = confirm
    }

    public static let standard = PressureTimings()
}
