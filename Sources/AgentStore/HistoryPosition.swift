// SPDX-License-Identifier: Apache-2.0

/// A run's place in the history's order, newest first: by start, then by run id. A page
/// continues below the position of the previous page's last run, which stays meaningful after
/// that run is pruned.
public struct HistoryPosition: Sendable, Hashable {
    /// Unix milliseconds.
    public var startedAt: Int64
    public var runID: String

    public init(startedAt: Int64, runID: String) {
        self.startedAt = startedAt
        self.runID = runID
    }
}
