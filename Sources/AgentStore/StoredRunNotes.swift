// SPDX-License-Identifier: Apache-2.0
/// What a run said, as stored with its end (DESIGN §10); nil where nothing was recorded (a live
/// run, a run recorded before these columns existed, a run that printed no such directive).
public struct StoredRunNotes: Sendable, Hashable {
    /// The last `STATUS=` text.
    public var statusText: String?
    /// The last accepted `RESULT=`.
    public var result: String?
    /// Output lines cut at 4096 bytes.
    public var truncatedLines: Int?
    /// Directives counted and ignored (`PROGRESS=7/3`, an oversized `CHECKPOINT=` or `RESULT=`).
    public var invalidDirectives: Int?
    /// The checkpoint the run started with (`AGENTD_CHECKPOINT`).
    public var checkpointGiven: String?
    /// The checkpoint in force when it ended: the next run's `AGENTD_CHECKPOINT`.
    public var checkpointLeft: String?

    public init(statusText: String? = nil, result: String? = nil, truncatedLines: Int? = nil,
                invalidDirectives: Int? = nil, checkpointGiven: String? = nil, checkpointLeft: String? = nil) {
        self.statusText = statusText
        self.result = result
        self.truncatedLines = truncatedLines
        self.invalidDirectives = invalidDirectives
        self.checkpointGiven = checkpointGiven
        self.checkpointLeft = checkpointLeft
    }
}
