// SPDX-License-Identifier: Apache-2.0
/// What a run started by `OnSuccess=` is handed from the run whose success chained it: that
/// run's id and its `RESULT=` (DESIGN §5: `AGENTD_PREVIOUS_RUN_ID`, `AGENTD_PREVIOUS_RESULT`).
/// Kept in memory only: a chained run launched after an agent restart has none.
public struct ChainedInput: Sendable, Hashable {
    public var previousRunID: RunID
    /// nil when the previous run printed no `RESULT=` (an empty one is a result).
    public var previousResult: String?
    /// An `OnFailure=` run's: how the previous run ended (`AGENTD_PREVIOUS_STOP_REASON`, and its
    /// output tail in the file `AGENTD_PREVIOUS_OUTPUT` names); nil after a success.
    public var previousStopReason: StopReason?

    public init(previousRunID: RunID, previousResult: String?, previousStopReason: StopReason? = nil) {
        self.previousRunID = previousRunID
        self.previousResult = previousResult
        self.previousStopReason = previousStopReason
    }
}
