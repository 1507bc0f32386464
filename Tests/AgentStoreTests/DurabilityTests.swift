// SPDX-License-Identifier: Apache-2.0
import Testing
import Glibc
@testable import AgentStore

/// A fresh directory holding a migrated database, removed afterwards.
private func withDatabase(_ body: (Database, String) throws -> Void) throws {
    var template = Array("/tmp/agentd-durable-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
        return String(cString: result)
    }
    guard let dir else { throw StoreError(operation: "mkdtemp", path: "/tmp", code: errno, message: "") }
    defer { _ = system("rm -rf '\(dir)'") }
    let db = try Database(path: dir + "/state.db")
    try Migrations.apply(to: db)
    try body(db, dir)
}

private func fileSize(_ path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
}

@Test func theAgentsConnectionKeepsTheWALIndexInMemoryAndCreatesNoShmFile() throws {
    try withDatabase { db, dir in
        try RunStore(database: db).saveCheckpoint("x", identifier: "local.a", at: 1)
        #expect(fileSize(dir + "/state.db-wal") != nil)
        #expect(fileSize(dir + "/state.db-shm") == nil, "an -shm file would be mmapped, and SIGBUS the agent when made immutable")
    }
}

@Test func anotherConnectionIsRefusedAtOnceInsteadOfWaitingForTheLock() throws {
    try withDatabase { db, dir in
        try RunStore(database: db).saveCheckpoint("x", identifier: "local.a", at: 1)
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        #expect {
            _ = try Database(path: dir + "/state.db", exclusive: false)
        } throws: { error in
            (error as? StoreError)?.kind == .locked
        }
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let milliseconds = (end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1_000_000
        #expect(milliseconds < 100, "no busy timeout: failing took \(milliseconds) ms")
    }
}

@Test func aCheckpointMovesEverythingIntoTheDatabaseFileAndEmptiesTheWAL() throws {
    try withDatabase { db, dir in
        let store = RunStore(database: db)
        for number in 1...50 {
            try store.insert(StoredRun(runID: "r\(100_000 + number)", identifier: "local.a", kind: .refresh,
                                       reason: .simulated, startedAt: Int64(number)))
        }
        #expect((fileSize(dir + "/state.db-wal") ?? 0) > 0)
        try db.checkpoint()
        #expect(fileSize(dir + "/state.db-wal") == 0)
        #expect(try store.history(identifier: nil, limit: 100).count == 50)
    }
}

@Test func sqliteResultCodesMapToWhatTheAgentDoesAboutThem() {
    #expect(StoreErrorKind(code: 13, systemErrno: 0) == .full)           // SQLITE_FULL
    #expect(StoreErrorKind(code: 10 | (13 << 8), systemErrno: 28) == .full) // an I/O error from ENOSPC
    #expect(StoreErrorKind(code: 5, systemErrno: 0) == .locked)          // SQLITE_BUSY
    #expect(StoreErrorKind(code: 8, systemErrno: 0) == .notWritable)     // SQLITE_READONLY
    #expect(StoreErrorKind(code: 10 | (3 << 8), systemErrno: 1) == .notWritable) // EPERM: immutable
    #expect(StoreErrorKind(code: 11, systemErrno: 0) == .damaged)        // SQLITE_CORRUPT
    #expect(StoreErrorKind(code: 11 | (1 << 8), systemErrno: 0) == .damaged) // SQLITE_CORRUPT_VTAB
    #expect(StoreErrorKind(code: 26, systemErrno: 0) == .damaged)        // SQLITE_NOTADB
    #expect(StoreErrorKind.damaged.isTransient, "refused and kept until the file is replaced, not given up")
    #expect(StoreErrorKind(code: 19, systemErrno: 0) == .permanent)      // SQLITE_CONSTRAINT
    #expect(!StoreErrorKind.permanent.isTransient)
}

private let diskFull = StoreError(operation: "step", path: "state.db", code: 13, message: "database or disk is full")

@Test func theQueueOfUnwrittenRecordsIsBoundedAndCountsWhatItDrops() {
    var queue = UnwrittenQueue(capacity: 3)
    var dropped: [String] = []
    for number in 1...5 {
        if let entry = queue.append("run \(number)", { _ in }) { dropped.append(entry.label) }
    }
    #expect(queue.count == 3)
    #expect(dropped == ["run 1", "run 2"])
    #expect(queue.dropped == 2)
    #expect(queue.entries.map(\.label) == ["run 3", "run 4", "run 5"])
}

@Test func aNewerWriteWithTheSameKeyReplacesTheQueuedOne() {
    var queue = UnwrittenQueue(capacity: 3)
    queue.append("end of r1", { _ in })
    for value in 1...10 { queue.append("checkpoint \(value)", key: "checkpoint local.a", { _ in }) }
    #expect(queue.entries.map(\.label) == ["end of r1", "checkpoint 10"])
    #expect(queue.dropped == 0)
}

@Test func drainingWritesInOrderAndStopsAtTroubleThatMayPass() throws {
    try withDatabase { db, _ in
        var queue = UnwrittenQueue()
        // Entries are Sendable (the writer's thread runs them): what they touch is in a box.
        final class Disk: @unchecked Sendable {
            var written: [Int] = []
            var full = false
        }
        let disk = Disk()
        for number in 1...4 {
            queue.append("record \(number)") { _ in
                if number == 3 && disk.full { throw diskFull }
                disk.written.append(number)
            }
        }
        disk.full = true
        let first = queue.drain(into: db) { _, _ in Issue.record("nothing is given up") }
        #expect(first.written == 2)
        #expect(first.error?.kind == .full)
        #expect(queue.entries.map(\.label) == ["record 3", "record 4"])
        disk.full = false
        let second = queue.drain(into: db) { _, _ in }
        #expect(second.written == 2)
        #expect(second.error == nil)
        #expect(disk.written == [1, 2, 3, 4])
        #expect(queue.isEmpty)
    }
}

@Test func aWriteThatCanNeverSucceedIsGivenUpAndTheRestStillWritten() throws {
    try withDatabase { db, _ in
        var queue = UnwrittenQueue()
        queue.append("bad") { _ in throw StoreError(operation: "step", path: "state.db", code: 19, message: "constraint") }
        queue.append("good") { db in try RunStore(database: db).saveCheckpoint("x", identifier: "local.a", at: 1) }
        var abandoned: [String] = []
        let (written, trouble) = queue.drain(into: db) { entry, _ in abandoned.append(entry.label) }
        #expect(abandoned == ["bad"])
        #expect(written == 1)
        #expect(trouble == nil)
        let saved = try RunStore(database: db).checkpoint(identifier: "local.a")
        #expect(saved == "x")
    }
}
