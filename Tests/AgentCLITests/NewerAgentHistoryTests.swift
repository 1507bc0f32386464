// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
@testable import AgentCLI

/// An agentctl older than the agentd it reads: a start or stop reason it does not know is shown
/// as the agent wrote it, never an unreadable answer.
@Suite struct NewerAgentHistoryTests {
    private let newerRun = #"{"endedAt":"2026-11-30T09:05:04.000Z","identifier":"local.backup","kind":"processing","logTail":["cosmic rays"],"reason":"moonrise","runID":"r000046","startedAt":"2026-11-30T09:05:00.000Z","stopKind":"expired","expiredBy":"solar-flare","stopReason":"expired(solar-flare)"}"#

    @Test func anUnknownStopReasonFromANewerAgentStillRendersInHistory() throws {
        let record = try MessageCoding.decode(RunRecord.self, from: Array(newerRun.utf8))
        let table = RunCommands.render([record], context: Fixture.context(width: 120))
        let row = try #require(table.split(separator: "\n").first { $0.hasPrefix("r000046") })
        #expect(row.contains("moonrise") && row.contains("expired(solar-flare)"))
        // Not a success: its output is shown, as for any run that did not succeed.
        #expect(RunNotesView.failedOutput(record, indent: "", width: nil).joined().contains("cosmic rays"))
    }

    @Test func anUnknownStopReasonIsColouredAsAFailure() {
        #expect(Style.role(forStopReason: "expired(solar-flare)") == .error)
        #expect(Style.role(forStopReason: "expired(max-runtime)") == .warning)
    }
}
