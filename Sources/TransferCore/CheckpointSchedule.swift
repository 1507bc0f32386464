// SPDX-License-Identifier: Apache-2.0
/// A `CHECKPOINT=` after every `interval` bytes received, so an agent that is killed outright still
/// knows the validator and about where the download was.
public struct CheckpointSchedule: Sendable {
    public static let defaultInterval: Int64 = 8 << 20

    private let interval: Int64
    private var next: Int64

    public init(startBytes: Int64, interval: Int64 = CheckpointSchedule.defaultInterval) {
        self.interval = max(1, interval)
        self.next = startBytes + self.interval
    }

    /// True when `bytes` has passed the next mark (then the mark moves on).
    public mutating func due(bytes: Int64) -> Bool {
        guard bytes >= next else { return false }
        next = bytes + interval
        return true
    }
}
