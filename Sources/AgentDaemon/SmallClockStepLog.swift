// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// What the log says of wall-clock steps too small to move anything (under a second). Some
/// machines have their clock set many times a second for minutes at a time (a VM's time sync,
/// traced at ten steps of 0.5 ms a second): a line each would fill the journal. The first step
/// is logged; after it at most one line per `quietPeriod`, counting the steps since. No timer:
/// the count is told with the next step after the period, so an idle agent is never woken for it.
struct SmallClockStepLog {
    static let quietPeriod: Duration = .seconds(600)

    private var lastLine: MonotonicInstant?
    private var unlogged = 0
    private var largestUnlogged: Duration = .zero

    /// The line for a step of `size` at `now`, or nil while the period since the last one runs.
    mutating func line(for size: Duration, at now: MonotonicInstant) -> String? {
        let magnitude = size < .zero ? .zero - size : size
        if let last = lastLine, now - last < Self.quietPeriod {
            unlogged += 1
            largestUnlogged = max(largestUnlogged, magnitude)
            return nil
        }
        let text: String
        if let last = lastLine, unlogged > 0 {
            let largest = max(largestUnlogged, magnitude)
            let elapsed = Duration.seconds((now - last).components.seconds)
            text = "wall clock set \(unlogged + 1) times in \(TimeSpan.format(elapsed)) by steps of at most "
                + "\(Self.microseconds(largest)) us: nothing to move (such steps are logged at most every "
                + "\(TimeSpan.format(Self.quietPeriod)))"
        } else {
            text = "wall clock set (a step of \(Self.microseconds(size)) us, or a resume): nothing to move"
        }
        lastLine = now
        unlogged = 0
        largestUnlogged = .zero
        return text
    }

    static func microseconds(_ size: Duration) -> Int64 {
        size.components.seconds * 1_000_000 + size.components.attoseconds / 1_000_000_000_000
    }
}
