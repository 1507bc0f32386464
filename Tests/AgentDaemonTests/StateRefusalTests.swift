// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentDaemon

/// A request the state could not make durable is refused saying why, and whether agentd kept it
/// (DESIGN §10).
@Suite struct StateRefusalTests {
    private let full = StateProblem(kind: .full, directory: "/var/lib/agentd", detail: "No space left on device")

    @Test func aRequestRefusedBeforeItWasHandledSaysOnlyWhy() {
        let text = StateRefusal.notAccepted(full).description
        #expect(text.hasPrefix("state directory full: /var/lib/agentd (No space left on device)"))
        #expect(!text.contains("holds it in memory"))
    }

    @Test func aRequestWhoseWriteFailedSaysItIsHeldInMemory() {
        #expect(StateRefusal.heldInMemory(full).description == full.refusal + StateRefusal.heldNote)
        #expect(StateRefusal.heldInMemory(nil).description.hasPrefix("state directory not writable; this request was not written"))
    }

    @Test func aRequestWhoseSyncFailedSaysItWasWritten() {
        #expect(StateRefusal.unsynced(nil).description
                == "state directory not writable" + StateRefusal.unsyncedNote)
    }
}
