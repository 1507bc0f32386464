// SPDX-License-Identifier: Apache-2.0
import Testing
import AgentProtocol
@testable import AgentDaemon

/// A history answer stays within its byte budget, whatever the runs hold.
@Suite("History page budget")
struct HistoryPageBudgetTests {
    private func run(_ number: Int, logTail: [String] = [], title: String? = nil,
                     notes: RunNotes = RunNotes()) -> RunRecord {
        RunRecord(runID: "r\(100_000 + number)", identifier: "local.export", kind: .processing, reason: "interval",
                  startedAt: 1_796_045_397_600 - Int64(number), endedAt: 1_796_045_397_900, stopReason: "failure(exit 3)",
                  exitStatus: 3, signal: nil, progress: 0.3333333333333333, title: title, logTail: logTail, notes: notes)
    }

    private func encodedSize(_ page: HistoryPage) throws -> Int {
        try MessageCoding.encodeLine(ControlResponseFields(.success(.runs(page.records, nextCursor: page.nextCursor)))).count
    }

    @Test func theEncodedPageNeverExceedsItsBudgetHoweverTheLinesAreEscaped() throws {
        let nasty = String(repeating: "\u{1}\"/\\\u{2028}é\t", count: 40)
        var page = HistoryPage(limit: 1_000, budget: 64 << 10)
        var number = 0
        while page.add(run(number, logTail: Array(repeating: nasty, count: 5), title: nasty)) { number += 1 }
        #expect(page.records.count > 3)
        #expect(try encodedSize(page) <= 64 << 10)
        #expect(page.nextCursor?.description == page.records.last.map { "\($0.runID)@\($0.startedAt)" })
    }

    /// What a run said counts too: a 4 KiB result and status text, two checkpoints, both counts.
    @Test func whatARunSaidCountsAgainstTheBudget() throws {
        let nasty = String(repeating: "\u{1}\"/\\\u{2028}é\t", count: 40)
        let notes = RunNotes(statusText: nasty, result: String(repeating: "\u{7}/", count: 2_000),
                             truncatedLineCount: Int.max, invalidDirectiveCount: Int.max,
                             checkpointGiven: nasty, checkpointLeft: nasty)
        var page = HistoryPage(limit: 1_000, budget: 64 << 10)
        var number = 0
        while page.add(run(number, title: nasty, notes: notes)) { number += 1 }
        #expect(page.records.count > 1)
        #expect(try encodedSize(page) <= 64 << 10)
        // Every run on its own: the estimate is never below its encoding.
        let one = run(0, title: nasty, notes: notes)
        let alone = try MessageCoding.encodeLine(one).count
        #expect(HistoryPage.estimatedBytes(of: one) >= alone)
    }

    @Test func theRowLimitEndsAPageAndSaysMoreFollow() {
        var page = HistoryPage(limit: 3)
        let added = (0..<3).map { page.add(run($0)) }
        #expect(added == [true, true, true])
        #expect(page.nextCursor == nil)  // not known yet: the fourth row decides
        let fourth = page.add(run(3))
        #expect(!fourth)
        #expect(page.records.map(\.runID) == ["r100000", "r100001", "r100002"])
        // The last run and its start: the next page starts below it even if it is pruned.
        #expect(page.nextCursor?.description == "r100002@1796045397598")
    }

    @Test func aLastPageHasNoCursor() {
        var page = HistoryPage(limit: 20)
        let added = page.add(run(0))
        #expect(added)
        #expect(page.nextCursor == nil)
    }

    @Test func aRunLargerThanThePageKeepsTheNewestLinesOfItsLogTail() throws {
        let lines = (0..<50).map { "line \($0) " + String(repeating: "x", count: 1_300) }
        var page = HistoryPage(limit: 20, budget: 16 << 10)
        let added = page.add(run(0, logTail: lines))
        #expect(added)
        let kept = try #require(page.records.first?.logTail)
        #expect(!kept.isEmpty && kept.count < 50)
        #expect(kept.last == lines.last)
        #expect(try encodedSize(page) <= 16 << 10)
    }

    @Test func requestsAskingForMoreThanAThousandRowsGetAThousand() {
        #expect(HistoryPage(limit: 1_000_000).limit == 1_000)
        #expect(HistoryPage(limit: 0).limit == 1)
    }
}
