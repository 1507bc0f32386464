// SPDX-License-Identifier: Apache-2.0
import Testing
import AgentProtocol
@testable import AgentCLI

/// `history -v` and `explain`: what a run said, only what was recorded, each note on one line.
@Suite struct RunNotesViewTests {
    @Test func nothingRecordedShowsNothing() {
        #expect(RunNotesView.lines(RunNotes(), indent: "  ", width: 80).isEmpty)
        // Counts of zero are no news.
        #expect(RunNotesView.lines(RunNotes(truncatedLineCount: 0, invalidDirectiveCount: 0), indent: "", width: nil).isEmpty)
    }

    @Test func theCheckpointSaysWhetherItWasKeptOrMoved() {
        let kept = RunNotesView.lines(RunNotes(checkpointGiven: "b7", checkpointLeft: "b7"), indent: "", width: nil)
        #expect(kept == ["checkpoint: b7 (kept)"])
        let first = RunNotesView.lines(RunNotes(checkpointLeft: "b1"), indent: "", width: nil)
        #expect(first == ["checkpoint: none → b1"])
        let empty = RunNotesView.lines(RunNotes(checkpointGiven: "b1", checkpointLeft: ""), indent: "", width: nil)
        #expect(empty == ["checkpoint: b1 → \"\""])
    }

    @Test func aLongResultIsCutToTheTerminalAndControlCharactersAreReplaced() {
        let notes = RunNotes(statusText: "a\u{1B}[31mred", result: String(repeating: "r", count: 4000))
        let lines = RunNotesView.lines(notes, indent: "    ", width: 40)
        #expect(lines.count == 2)
        #expect(lines[0] == "    status:     a?[31mred")
        #expect(DisplayText.width(lines[1]) == 40)
        #expect(lines[1].hasSuffix("…"))
        #expect(RunNotesView.lines(RunNotes(result: ""), indent: "", width: nil) == ["result:     (empty)"])
    }
}
