// SPDX-License-Identifier: Apache-2.0
/// `Duration` arithmetic that saturates instead of trapping: durations here come from config
/// files and plugin-controlled timelines, and a pure core must not crash on an absurd value.
enum DurationArithmetic {
    /// The largest duration these helpers produce: Int64.max seconds, ~292 billion years.
    static let ceiling = Duration.seconds(Int64.max)
    static let floor = Duration.seconds(Int64.min)

    /// `a + b`, clamped to `floor...ceiling`.
    static func sum(_ a: Duration, _ b: Duration) -> Duration {
        let (aSeconds, aAtto) = a.components
        let (bSeconds, bAtto) = b.components
        let (seconds, overflow) = aSeconds.addingReportingOverflow(bSeconds)
        if overflow { return aSeconds > 0 ? ceiling : floor }
        // Each attosecond component is below 10^18 in magnitude, so their sum fits in Int64, and
        // Duration's own storage is wide enough for Int64 seconds plus that remainder.
        let result = Duration(secondsComponent: seconds, attosecondsComponent: aAtto + bAtto)
        return min(max(result, floor), ceiling)
    }
}
