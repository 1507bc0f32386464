// SPDX-License-Identifier: Apache-2.0
import Testing
import Glibc
@testable import AgentStore

/// The history is read in pages from a position (a run's start and id), so no answer needs every run in memory.
@Suite("History pages")
struct HistoryPageTests {
    private func withRuns(_ body: (RunStore) throws -> Void) throws {
        var template = Array("/tmp/agentd-pages-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        guard let dir else { return }
        defer { _ = system("rm -rf '\(dir)'") }
        let db = try Database(path: dir + "/state.db")
        try Migrations.apply(to: db)
        let store = RunStore(database: db)
        // r000001…r000010; r000005 and r000006 start at the same millisecond.
        for number in 1...10 {
            let started = Int64(number == 6 ? 5 : number) * 1000
            try store.insert(StoredRun(runID: "r0000" + (number < 10 ? "0\(number)" : "\(number)"), identifier: number % 2 == 0 ? "local.even" : "local.odd",
                                       kind: .refresh, reason: .scheduled, startedAt: started))
        }
        try body(store)
    }

    /// A page below the run `before` (looked up for its start), or below `position`.
    private func page(_ store: RunStore, _ identifier: String? = nil, before: String? = nil,
                      position: HistoryPosition? = nil, limit: Int) throws -> [String] {
        var below = position
        if let before {
            let run = try #require(try store.run(before))
            below = HistoryPosition(startedAt: run.record.startedAt, runID: before)
        }
        var ids: [String] = []
        try store.historyPage(identifier: identifier, before: below, limit: limit) { run in
            ids.append(run.runID)
            return true
        }
        return ids
    }

    @Test func pagesFollowEachOtherWithoutGapsOrRepeats() throws {
        try withRuns { store in
            var seen: [String] = []
            var cursor: String?
            repeat {
                let ids = try page(store, before: cursor, limit: 3)
                seen += ids
                cursor = ids.count == 3 ? ids.last : nil
            } while cursor != nil
            #expect(seen == ["r000010", "r000009", "r000008", "r000007", "r000006", "r000005",
                             "r000004", "r000003", "r000002", "r000001"])
            let unpaged = try store.history(identifier: nil, limit: 100).map(\.runID)
            #expect(seen == unpaged)
        }
    }

    @Test func aPageOfOneIdentifierStartsBelowTheCursor() throws {
        try withRuns { store in
            let first = try page(store, "local.even", limit: 2)
            let rest = try page(store, "local.even", before: "r000008", limit: 10)
            #expect(first == ["r000010", "r000008"])
            #expect(rest == ["r000006", "r000004", "r000002"])
        }
    }

    @Test func aPageContinuesBelowARunThatWasPrunedSinceThePreviousPage() throws {
        try withRuns { store in
            let first = try page(store, limit: 5)
            #expect(first == ["r000010", "r000009", "r000008", "r000007", "r000006"])
            // r000006 started at the same millisecond as r000005: the run id breaks the tie.
            let last = try #require(try store.run("r000006"))
            try store.database.execute("DELETE FROM runs WHERE run_id = 'r000006'")
            let rest = try page(store, position: HistoryPosition(startedAt: last.record.startedAt, runID: "r000006"), limit: 10)
            #expect(rest == ["r000005", "r000004", "r000003", "r000002", "r000001"])
        }
    }

    @Test func readingStopsWhenTheVisitorHasEnough() throws {
        try withRuns { store in
            var visited = 0
            try store.historyPage(identifier: nil, before: nil, limit: 100) { _ in
                visited += 1
                return visited < 4
            }
            #expect(visited == 4)
            // The statement was reset: the next page reads from the start again.
            let again = try page(store, limit: 1)
            #expect(again == ["r000010"])
        }
    }

    @Test func aJobsPagesHoldItsSubmissionsDynamicIdentifiersAndNoOtherJobs() throws {
        try withRuns { store in
            // local.export's submissions, and local.export.raw: a job of its own below it.
            let runs: [(String, String, String)] = [
                ("r000011", "local.export", "local.export"), ("r000012", "local.export.Holidays", "local.export"),
                ("r000013", "local.export.raw", "local.export.raw"), ("r000014", "local.export.raw.1", "local.export.raw"),
            ]
            for (index, (run, identifier, job)) in runs.enumerated() {
                try store.insert(StoredRun(runID: run, identifier: identifier, kind: .continued, reason: .submitted,
                                           startedAt: Int64(20 + index) * 1000, job: job))
            }
            var ofJob: [String] = []
            try store.historyPage(identifier: "local.export", before: nil, limit: 10, ofJob: true) { run in
                ofJob.append(run.runID + " " + run.identifier)
                return true
            }
            #expect(ofJob == ["r000012 local.export.Holidays", "r000011 local.export"])
            // One dynamic identifier alone, by its own name.
            #expect(try page(store, "local.export.raw.1", limit: 10) == ["r000014"])
            // The job is read back with the row, and finishing keeps it.
            var ended = try #require(try store.run("r000012"))
            #expect(ended.job == "local.export")
            ended.endedAt = 30_000
            ended.stopReason = .known(.success)
            try store.finish(ended)
            #expect(try store.run("r000012")?.job == "local.export")
        }
    }

    @Test func runsRecordedBeforeJobsWereKeptBelongToTheirOwnIdentifier() throws {
        var template = Array("/tmp/agentd-pages-XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        })
        defer { _ = system("rm -rf '\(dir)'") }
        let db = try Database(path: dir + "/state.db")
        // The schema of the agent before, with a run in it; then the upgrade.
        let before = Migrations.all.count - 1
        for migration in Migrations.all.prefix(before) { try db.execute(migration) }
        try db.execute("PRAGMA user_version = \(before)")
        try db.execute("""
            INSERT INTO runs (run_id, identifier, kind, reason, started_at) VALUES ('r000001', 'local.old', 'refresh', 'scheduled', 1000)
            """)
        try Migrations.apply(to: db)
        var found: [String] = []
        try RunStore(database: db).historyPage(identifier: "local.old", before: nil, limit: 5, ofJob: true) { run in
            found.append(run.runID)
            return true
        }
        #expect(found == ["r000001"])
    }
}
