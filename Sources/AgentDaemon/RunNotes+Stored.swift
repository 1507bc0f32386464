// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentStore

extension RunNotes {
    /// What a stored run said, as `history` answers it.
    init(_ stored: StoredRunNotes) {
        self.init(statusText: stored.statusText, result: stored.result,
                  truncatedLineCount: stored.truncatedLines, invalidDirectiveCount: stored.invalidDirectives,
                  checkpointGiven: stored.checkpointGiven, checkpointLeft: stored.checkpointLeft)
    }
}
