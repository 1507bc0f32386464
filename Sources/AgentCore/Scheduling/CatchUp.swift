// SPDX-License-Identifier: Apache-2.0
/// Catch-up after downtime (DESIGN §6): every overdue job runs once — never once per missed
/// interval — and the overdue jobs are spread over `CatchUpSpread=` instead of starting
/// together, the most overdue first.
enum CatchUp {
    /// Slots for `overdue` jobs, which must be sorted most overdue first: the most overdue runs
    /// at once (nothing waits behind it, and a machine back from a weekend asleep gets its
    /// oldest work done first), the others at offsets drawn from `random` in `[0, spread)`,
    /// sorted, so the i-th most overdue job gets the i-th earliest slot. A zero spread puts
    /// every slot at `now`.
    static func slots(count: Int, now: SchedulerTime, spread: Duration,
                      random: inout SplitMix64) -> [SchedulerTime]
    {
        let span = max(0, spread.schedulerSeconds)
        guard count > 0 else { return [] }
        guard span > 0 else { return Array(repeating: now, count: count) }
        var offsets = (1..<count).map { _ in random.nextUnit() * span }
        offsets.sort()
        return [now] + offsets.map { SchedulerTime(seconds: now.seconds + $0) }
    }
}

/// SplitMix64: a tiny deterministic pseudo-random generator. The core owns no randomness; the
/// shell passes the seed, so a test (or a replay) sees the same catch-up plan every time.
/// Public for the tests of other modules that want reproducible inputs.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
