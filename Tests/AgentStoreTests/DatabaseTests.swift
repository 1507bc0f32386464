// SPDX-License-Identifier: Apache-2.0
import Testing
import Glibc
@testable import AgentStore

/// A fresh directory per test, removed afterwards.
private func withTempDirectory(_ body: (String) throws -> Void) throws {
    var template = Array("/tmp/agentd-store-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
        return String(cString: result)
    }
    guard let path else { throw StoreError(operation: "mkdtemp", path: "/tmp", code: errno, message: "") }
    defer { _ = system("rm -rf '\(path)'") }
    try body(path)
}

@Test func openingCreatesTheDatabaseInWALMode() throws {
    try withTempDirectory { dir in
        let db = try Database(path: dir + "/state.db")
        #expect(try db.journalMode() == "wal")
        #expect(access(dir + "/state.db", F_OK) == 0)
    }
}

@Test func migrationsRunOnceAndRecordTheSchemaVersion() throws {
    try withTempDirectory { dir in
        do {
            let db = try Database(path: dir + "/state.db")
            #expect(try Migrations.apply(to: db) == Migrations.all.count)
            try db.prepare("INSERT INTO checkpoints VALUES (?, ?, ?)")
                .run([.text("local.a"), .text("batch-1"), .integer(5)])
        }
        let reopened = try Database(path: dir + "/state.db")
        #expect(try Migrations.currentVersion(of: reopened) == Migrations.all.count)
        try Migrations.apply(to: reopened)
        let statement = try reopened.prepare("SELECT value FROM checkpoints WHERE identifier = ?")
        try statement.bind([.text("local.a")])
        #expect(try statement.step())
        #expect(statement.text(0) == "batch-1")
    }
}

@Test func aNewerSchemaThanKnownIsRefusedWithAClearMessage() throws {
    try withTempDirectory { dir in
        let db = try Database(path: dir + "/state.db")
        try db.execute("PRAGMA user_version = 999")
        #expect {
            try Migrations.apply(to: db)
        } throws: { error in
            "\(error)".contains("newer than this agentd knows")
        }
    }
}

@Test func aDatabaseInAMissingDirectoryFailsNamingThePath() throws {
    #expect {
        _ = try Database(path: "/nonexistent-agentd-dir/state.db")
    } throws: { error in
        "\(error)".contains("/nonexistent-agentd-dir/state.db")
    }
}

@Test func aFailedTransactionRollsBack() throws {
    try withTempDirectory { dir in
        let db = try Database(path: dir + "/state.db")
        try Migrations.apply(to: db)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.prepare("INSERT INTO budget_ledger VALUES (?, ?)").run([.text("2026-11-30"), .integer(1)])
                throw Boom()
            }
        }
        let count = try db.prepare("SELECT count(*) FROM budget_ledger")
        #expect(try count.step())
        #expect(count.int64(0) == 0)
    }
}

/// Issue 28 item 12: the connection tells when `state.db-wal` on disk is no longer the WAL it
/// writes (deleted, renamed away) and when `state.db` itself went.
@Test func aWALDeletedOrRenamedUnderTheConnectionIsTold() throws {
    try withTempDirectory { dir in
        let db = try Database(path: dir + "/state.db")
        try Migrations.apply(to: db)
        #expect(access(dir + "/state.db-wal", F_OK) == 0, "the WAL exists once the database is open")
        #expect(db.walDetachment() == nil)
        #expect(rename(dir + "/state.db-wal", dir + "/moved") == 0)
        #expect(db.walDetachment() == "was renamed away")
        #expect(unlink(dir + "/moved") == 0)
        #expect(db.walDetachment() == "was deleted")
        #expect(db.databaseFileIsAttached())
        #expect(unlink(dir + "/state.db") == 0)
        #expect(!db.databaseFileIsAttached())
    }
}
