// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Testing
import Glibc
@testable import AgentStore

/// The store turns a row's kind, reason and stop reason into their types once, as it reads the
/// row; a text a newer agentd wrote is kept (start and stop reasons) or named (kind), never a
/// crash.
@Suite struct StoredTextTests {
    private func withStore(_ body: (RunStore) throws -> Void) throws {
        var template = Array("/tmp/agentd-texts-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        let path = try #require(dir)
        defer { _ = system("rm -rf '\(path)'") }
        let database = try Database(path: path + "/state.db")
        try Migrations.apply(to: database)
        try body(RunStore(database: database))
    }

    private func insertRow(_ store: RunStore, kind: String = "processing", reason: String, stopReason: String) throws {
        try store.database.execute("""
            INSERT INTO runs (run_id, identifier, kind, reason, started_at, ended_at, stop_reason)
            VALUES ('r000009', 'local.new', '\(kind)', '\(reason)', 5000, 6000, '\(stopReason)')
            """)
    }

    @Test func aRowReadsAsTypedValues() throws {
        try withStore { store in
            try insertRow(store, reason: "catch-up", stopReason: "expired(no-progress)")
            let run = try #require(try store.run("r000009"))
            #expect(run.kind == .processing && run.reason == .known(.catchUp))
            #expect(run.stopReason == .known(.expired(.noProgress)))
        }
    }

    @Test func reasonsANewerAgentWroteAreKeptAsTheirText() throws {
        try withStore { store in
            try insertRow(store, reason: "moonrise", stopReason: "expired(solar-flare)")
            let run = try #require(try store.run("r000009"))
            #expect(run.reason == .unknown("moonrise"))
            #expect(run.stopReason == .unknown("expired(solar-flare)"))
            // Shown as it is, with no derived fields a script could misread.
            #expect(run.record.stopKind == nil && run.record.expiredBy == nil)
            #expect(run.stopReason?.description == "expired(solar-flare)")
        }
    }

    @Test func aJobKindThatIsNotOneOfTheThreeFailsTheReadNamingIt() throws {
        try withStore { store in
            try insertRow(store, kind: "sporadic", reason: "scheduled", stopReason: "success")
            #expect {
                _ = try store.run("r000009")
            } throws: { error in
                let text = "\(error)"
                return text.contains("r000009") && text.contains("kind \"sporadic\"")
            }
        }
    }
}
