// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
import Glibc
@testable import AgentStore

/// Run records keep what the run said (schema 6, DESIGN §10): status text, result, truncated
/// lines, invalid directives, the checkpoint given and the one left.
@Suite struct RunNotesStoreTests {
    private func withDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/agentd-notes-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        let path = try #require(dir)
        defer { _ = system("rm -rf '\(path)'") }
        try body(path)
    }

    private let notes = RunNotes(statusText: "indexed 40 of 40", result: "/srv/out/nightly.tar",
                                       truncatedLineCount: 2, invalidDirectiveCount: 3,
                                       checkpointGiven: "batch-1", checkpointLeft: "batch-2")

    @Test func aFinishedRunKeepsWhatItSaid() throws {
        try withDirectory { dir in
            let store = RunStore(database: try Database(path: dir + "/state.db"))
            try Migrations.apply(to: store.database)
            try store.insert(StoredRun(runID: "r000001", identifier: "local.a", kind: .processing,
                                       reason: .simulated, startedAt: 1_000))
            // A live run has recorded nothing of what it said yet.
            #expect(try store.run("r000001")?.notes == RunNotes())
            var ended = StoredRun(runID: "r000001", identifier: "local.a", kind: .processing, reason: .simulated,
                                  startedAt: 1_000, endedAt: 2_000, stopReason: .success, exitStatus: 0)
            ended.notes = notes
            try store.finish(ended)
            #expect(try store.run("r000001")?.notes == notes)
            var seen: [RunNotes] = []
            try store.historyPage(identifier: nil, before: nil, limit: 5) { seen.append($0.notes); return true }
            #expect(seen == [notes])
        }
    }

    @Test func theMigrationFromSchema5KeepsOldRowsWithNothingRecorded() throws {
        try withDirectory { dir in
            do {
                // A state database as the previous agentd left it: schema 5, one finished run.
                let old = try Database(path: dir + "/state.db")
                for (index, migration) in Migrations.all.prefix(5).enumerated() {
                    try old.execute(migration)
                    try old.execute("PRAGMA user_version = \(index + 1)")
                }
                try old.execute("""
                    INSERT INTO runs (run_id, identifier, kind, reason, started_at, ended_at, stop_reason,
                                      exit_status, title, log_tail, boot_id)
                    VALUES ('r000007', 'local.old', 'refresh', 'scheduled', 5000, 6000, 'failure(exit 3)',
                            3, 'Old title', 'line one', 'boot-1')
                    """)
            }
            let database = try Database(path: dir + "/state.db")
            #expect(try Migrations.currentVersion(of: database) == 5)
            #expect(try Migrations.apply(to: database) == Migrations.all.count)
            let store = RunStore(database: database)
            let old = try #require(try store.run("r000007"))
            #expect(old.identifier == "local.old")
            #expect(old.endedAt == 6000)
            #expect(old.stopReason == "failure(exit 3)")
            #expect(old.exitStatus == 3)
            #expect(old.title == "Old title")
            #expect(old.logTail == ["line one"])
            #expect(old.bootID == "boot-1")
            #expect(old.notes == RunNotes())
            // New runs record what they said beside it.
            var new = StoredRun(runID: "r000008", identifier: "local.old", kind: .refresh, reason: .scheduled,
                                startedAt: 7_000, endedAt: 8_000, stopReason: .success, exitStatus: 0)
            new.notes = notes
            try store.finish(new)
            #expect(try store.history(identifier: "local.old", limit: 5).map(\.notes) == [notes, RunNotes()])
            #expect(try store.highestRunNumber() == 8)
        }
    }
}
