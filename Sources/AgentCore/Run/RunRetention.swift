// SPDX-License-Identifier: Apache-2.0
/// How long finished runs stay in the state database (docs/agentd.md, "State"). Without a
/// bound the runs table — each row with up to 64 KiB of output — grows for as long as the
/// machine runs: a job every minute adds half a million runs a year.
///
/// A finished run is removed once it started more than `age` ago, unless it is among the
/// `keptPerJob` newest runs of its job (a submission's dynamic identifiers count with their
/// job), so a monthly job keeps its last runs for `list`, `history` and `explain`. Live runs
/// are never removed. `age` is past `stats`' window and the fresh-days lookback (8 days).
public struct RunRetention: Sendable, Equatable {
    public var age: Duration
    public var keptPerJob: Int
    /// Jobs one pass looks at, and runs it removes, at most: a pass is one transaction on the
    /// state writer, and the loop's reads (a new run's checkpoint, `history`) and the
    /// acknowledgements queued behind it wait for it: about a millisecond at most.
    public var jobsPerPass: Int
    public var removalsPerPass: Int
    /// Passes are at least this far apart (after the one at start), continuing right away only
    /// while a pass stopped at its bounds.
    public var spacing: Duration

    public static let standard = RunRetention(age: .seconds(30 * 86_400), keptPerJob: 100, jobsPerPass: 32,
                                              removalsPerPass: 250, spacing: .seconds(3_600))

    public init(age: Duration, keptPerJob: Int, jobsPerPass: Int, removalsPerPass: Int, spacing: Duration) {
        self.age = age
        self.keptPerJob = max(1, keptPerJob)
        self.jobsPerPass = max(1, jobsPerPass)
        self.removalsPerPass = max(1, removalsPerPass)
        self.spacing = spacing
    }

    /// Unix milliseconds: runs that started before this are old enough to be removed.
    public func cutoff(nowMilliseconds: Int64) -> Int64 {
        let (seconds, attoseconds) = age.components
        let ageMilliseconds = seconds.multipliedReportingOverflow(by: 1_000)
        guard !ageMilliseconds.overflow else { return Int64.min }
        let (cutoff, overflow) = nowMilliseconds.subtractingReportingOverflow(
            ageMilliseconds.partialValue + attoseconds / 1_000_000_000_000_000)
        return overflow ? Int64.min : cutoff
    }
}
