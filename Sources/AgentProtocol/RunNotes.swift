// SPDX-License-Identifier: Apache-2.0
/// What a run said, as its record keeps it (DESIGN §10): ``RunRecord``'s `statusText`, `result`,
/// `truncatedLineCount`, `invalidDirectiveCount`, `checkpointGiven`, `checkpointLeft`. nil where
/// nothing was recorded.
public struct RunNotes: Sendable, Hashable {
    public var statusText: String?
    public var result: String?
    public var truncatedLineCount: Int?
    public var invalidDirectiveCount: Int?
    public var checkpointGiven: String?
    public var checkpointLeft: String?

    public init(statusText: String? = nil, result: String? = nil, truncatedLineCount: Int? = nil,
                invalidDirectiveCount: Int? = nil, checkpointGiven: String? = nil, checkpointLeft: String? = nil) {
        self.statusText = statusText
        self.result = result
        self.truncatedLineCount = truncatedLineCount
        self.invalidDirectiveCount = invalidDirectiveCount
        self.checkpointGiven = checkpointGiven
        self.checkpointLeft = checkpointLeft
    }

    /// Nothing recorded (a live run, or one an older agentd recorded).
    public var isEmpty: Bool { self == RunNotes() }
}
