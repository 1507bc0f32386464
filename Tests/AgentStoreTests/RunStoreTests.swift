// SPDX-License-Identifier: Apache-2.0
import Testing
import Glibc
@testable import AgentStore

private func withStore(_ body: (RunStore, String) throws -> Void) throws {
    var template = Array("/tmp/agentd-runs-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
        return String(cString: result)
    }
    guard let dir else { return }
    defer { _ = system("rm -rf '\(dir)'") }
    let db = try Database(path: dir + "/state.db")
    try Migrations.apply(to: db)
    try body(RunStore(database: db), dir)
}

@Test func aRunIsRecordedAtLaunchAndFinishedExactlyOnce() throws {
    try withStore { store, _ in
        try store.insert(StoredRun(runID: "r000001", identifier: "local.a", kind: .processing,
                                   reason: .simulated, startedAt: 1_000, processGroup: 42, cgroup: "/x"))
        #expect(try store.unfinishedRuns().map(\.runID) == ["r000001"])
        var ended = StoredRun(runID: "r000001", identifier: "local.a", kind: .processing, reason: .simulated,
                              startedAt: 1_000, endedAt: 2_000, stopReason: .failure(exitStatus: 3), exitStatus: 3,
                              progress: 0.5, title: "T", logTail: "a\nb")
        try store.finish(ended)
        ended.stopReason = "success"
        try store.finish(ended)
        let run = try #require(try store.run("r000001"))
        #expect(run.stopReason == "failure(exit 3)")
        #expect(run.exitStatus == 3)
        #expect(run.logTail == ["a", "b"])
        #expect(try store.unfinishedRuns().isEmpty)
        #expect(try store.highestRunNumber() == 1)
    }
}

@Test func aLiveRunsLaterCommandReplacesItsProcessGroupButAnEndedRunKeepsIts() throws {
    try withStore { store, _ in
        try store.insert(StoredRun(runID: "r000001", identifier: "local.a", kind: .processing,
                                   reason: .simulated, startedAt: 1_000, processGroup: 42))
        try store.recordProcessGroup(57, runID: "r000001")
        #expect(try store.unfinishedRuns().first?.processGroup == 57)
        try store.finish(StoredRun(runID: "r000001", identifier: "local.a", kind: .processing, reason: .simulated,
                                   startedAt: 1_000, endedAt: 2_000, stopReason: .success))
        try store.recordProcessGroup(99, runID: "r000001")
        #expect(try store.run("r000001")?.processGroup == 57)
    }
}

@Test func historyIsNewestFirstAndFiltersByIdentifier() throws {
    try withStore { store, _ in
        for (index, id) in ["local.a", "local.b", "local.a"].enumerated() {
            try store.insert(StoredRun(runID: "r00000\(index + 1)", identifier: id, kind: .refresh,
                                       reason: .simulated, startedAt: Int64(index)))
        }
        #expect(try store.history(identifier: nil, limit: 10).map(\.runID) == ["r000003", "r000002", "r000001"])
        #expect(try store.history(identifier: "local.a", limit: 1).map(\.runID) == ["r000003"])
    }
}

@Test func checkpointsSurviveReopeningTheDatabase() throws {
    try withStore { store, dir in
        try store.saveCheckpoint("batch-1", identifier: "local.a", at: 1)
        try store.saveCheckpoint("batch-2", identifier: "local.a", at: 2)
        // The agent's connection holds the database exclusively until it is closed.
        store.database.close()
        let reopened = RunStore(database: try Database(path: dir + "/state.db"))
        #expect(try reopened.checkpoint(identifier: "local.a") == "batch-2")
        #expect(try reopened.checkpoint(identifier: "local.b") == nil)
    }
}

@Test func consecutiveFailuresCountUpAndASuccessResetsThem() throws {
    try withStore { store, _ in
        let first = try store.recordOutcome(identifier: "local.a", at: 1, success: false)
        let second = try store.recordOutcome(identifier: "local.a", at: 2, success: false)
        let afterSuccess = try store.recordOutcome(identifier: "local.a", at: 3, success: true)
        #expect([first, second, afterSuccess] == [1, 2, 0])
    }
}

@Test func theSchedulerStateKeepsOneAgentWideDocumentAndARowPerIdentifier() throws {
    try withStore { runs, dir in
        let store = SchedulerStateStore(database: runs.database)
        #expect(try store.load() == nil)
        try store.save(globals: #"{"paused":false}"#, rows: [("local.a", "{}"), ("local.b", "{}")], at: 1)
        try store.save(globals: #"{"paused":true}"#, rows: [("local.a", nil), ("local.b", #"{"x":1}"#)], at: 2)
        runs.database.close()
        let reopened = SchedulerStateStore(database: try Database(path: dir + "/state.db"))
        #expect(try reopened.load() == #"{"paused":true}"#)
        let rows = try reopened.loadRows()
        #expect(rows.map(\.identifier) == ["local.b"])
        #expect(rows.map(\.state) == [#"{"x":1}"#])
    }
}

@Test func anEndWhoseStartWasNeverWrittenStillRecordsTheRun() throws {
    try withStore { store, _ in
        try store.finish(StoredRun(runID: "r000007", identifier: "local.a", kind: .processing, reason: .simulated,
                                   startedAt: 1_000, endedAt: 2_000, stopReason: .success, exitStatus: 0))
        let run = try #require(try store.run("r000007"))
        #expect(run.stopReason == "success")
        #expect(run.startedAt == 1_000)
        #expect(try store.unfinishedRuns().isEmpty)
    }
}

@Test func aNULInAPluginsOutputLosesNothingAfterIt() throws {
    try withStore { store, _ in
        try store.insert(StoredRun(runID: "r000001", identifier: "local.a", kind: .processing,
                                   reason: .manual, startedAt: 1_000))
        let ended = StoredRun(runID: "r000001", identifier: "local.a", kind: .processing, reason: .manual,
                              startedAt: 1_000, endedAt: 2_000, stopReason: .success, exitStatus: 0,
                              title: "ti\u{0}tle", logTail: "three\nfour\u{0}NUL\nfive\nsix")
        try store.finish(ended)
        let run = try #require(try store.run("r000001"))
        #expect(run.logTail == ["three", "four\u{0}NUL", "five", "six"])
        #expect(run.title == "ti\u{0}tle")
    }
}
