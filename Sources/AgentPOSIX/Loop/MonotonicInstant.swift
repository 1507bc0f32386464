// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// A point on CLOCK_MONOTONIC, in nanoseconds since an unspecified start (boot, minus suspends).
///
/// The event loop reads this clock once per iteration (`EventLoop.now`); timers are expressed in it.
/// Arithmetic saturates instead of trapping: an instant never goes below zero or past `UInt64.max`.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds of CLOCK_MONOTONIC.
    public var nanoseconds: UInt64

    /// Wraps a raw CLOCK_MONOTONIC reading.
    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// Reads CLOCK_MONOTONIC now. Inside loop callbacks prefer `EventLoop.now`, read once per iteration.
    public static func now() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: cshim_monotonic_ns())
    }

    /// The earliest representable instant.
    public static let zero = MonotonicInstant(nanoseconds: 0)

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The instant `rhs` later (or earlier, for a negative duration), saturating.
    public static func + (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        lhs.advanced(byNanoseconds: clampedNanoseconds(of: rhs))
    }

    /// The instant `rhs` earlier (or later, for a negative duration), saturating.
    public static func - (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        let ns = clampedNanoseconds(of: rhs)
        return lhs.advanced(byNanoseconds: ns == Int64.min ? Int64.max : -ns)
    }

    /// The signed duration from `lhs`'s earlier point `rhs` to `lhs` (`lhs - rhs`).
    public static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        rhs.duration(to: lhs)
    }

    public static func += (lhs: inout MonotonicInstant, rhs: Duration) { lhs = lhs + rhs }
    public static func -= (lhs: inout MonotonicInstant, rhs: Duration) { lhs = lhs - rhs }

    /// The signed duration from `self` to `other` (positive when `other` is later).
    public func duration(to other: MonotonicInstant) -> Duration {
        if other.nanoseconds >= nanoseconds {
            return Self.duration(nanoseconds: other.nanoseconds - nanoseconds)
        }
        return .zero - Self.duration(nanoseconds: nanoseconds - other.nanoseconds)
    }

    /// Seconds with microsecond precision, e.g. `12.000345`, for logs.
    public var description: String {
        let seconds = nanoseconds / 1_000_000_000
        let micros = (nanoseconds % 1_000_000_000) / 1_000
        var fraction = String(micros)
        while fraction.utf8.count < 6 { fraction = "0" + fraction }
        return "\(seconds).\(fraction)"
    }

    private func advanced(byNanoseconds delta: Int64) -> MonotonicInstant {
        if delta >= 0 {
            let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(delta))
            return MonotonicInstant(nanoseconds: overflow ? UInt64.max : sum)
        }
        let magnitude = delta.magnitude
        return MonotonicInstant(nanoseconds: nanoseconds > magnitude ? nanoseconds - magnitude : 0)
    }

    private static func duration(nanoseconds: UInt64) -> Duration {
        .seconds(Int64(nanoseconds / 1_000_000_000)) + .nanoseconds(Int64(nanoseconds % 1_000_000_000))
    }

    /// A duration in whole nanoseconds, clamped to `Int64`'s range (sub-nanosecond parts truncated).
    package static func clampedNanoseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        let (total, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? Int64.min : Int64.max }
        return total
    }
}
