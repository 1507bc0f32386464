// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentDaemon
import AgentSystem

private func walSize(_ directory: String) -> Int? {
    var info = stat()
    return stat(directory + "/state.db-wal", &info) == 0 ? Int(info.st_size) : nil
}

/// Runs `loop` until `done` holds (checked every 20 ms) or `seconds` have passed.
private func run(_ loop: EventLoop, until done: @escaping () -> Bool, seconds: Int64) {
    func check() {
        if done() { loop.stop(); return }
        loop.schedule(after: .milliseconds(20)) { check() }
    }
    loop.schedule(after: .seconds(seconds)) { loop.stop() }
    check()
    loop.run()
}

@Test func theWALIsCheckpointedAndTheAgentToldItIsIdleOnceWritesHaveStoppedForTheIdleInterval() throws {
    let directory = try temporaryStateDirectory()
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let thread = SQLiteWriter(loop: loop)
    let writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread, syncs: WriterSyncs(writer: thread), idleCheckpoint: .milliseconds(300))
    var idleCalls = 0
    writer.onIdle = { idleCalls += 1 }
    for day in 1...20 {
        writer.write("ledger \(day)") { db in try db.execute("INSERT INTO budget_ledger VALUES ('d\(day)', 1)") }
    }
    run(loop, until: { writer.inFlight == 0 }, seconds: 20)
    #expect((walSize(directory) ?? 0) > 0, "the writes went to the WAL")
    #expect(idleCalls == 0)
    var started = timespec()
    clock_gettime(CLOCK_MONOTONIC, &started)
    run(loop, until: { walSize(directory) == 0 && idleCalls > 0 }, seconds: 20)
    var ended = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ended)
    let waited = (ended.tv_sec - started.tv_sec) * 1000 + (ended.tv_nsec - started.tv_nsec) / 1_000_000
    #expect(walSize(directory) == 0, "no checkpoint within 20 s of the last write")
    #expect(waited >= 250, "checkpointed \(waited) ms after the last write, before the idle interval")
    #expect(idleCalls == 1, "onIdle once, after the idle checkpoint")
    writer.shutdown()
}

private func temporaryStateDirectory() throws -> String {
    var template = Array("/tmp/agentd-writer-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
        return String(cString: result)
    }
    return try #require(made)
}

/// Writes `count` transactions of about one page each.
private func writePages(_ writer: StateWriter, _ count: Int) {
    writer.write("filler table") { db in try db.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)") }
    for index in 0..<count {
        writer.write("filler \(index)") { db in try db.execute("INSERT INTO filler VALUES (randomblob(3000))") }
    }
}

@Test func aBurstOfWritesPastSQLitesCheckpointPointIsCheckpointedOnlyOnceTheWritesPause() throws {
    let directory = try temporaryStateDirectory()
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let thread = SQLiteWriter(loop: loop)
    let limits = StateWriter.CheckpointLimits(quietCheckpoint: .milliseconds(300))
    let writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread, syncs: WriterSyncs(writer: thread), idleCheckpoint: .seconds(2), limits: limits)
    // Timed from before the burst: the quiet period counts from the loop's clock at the last
    // write, and outside an iteration that is the clock read when the loop was made.
    var started = timespec()
    clock_gettime(CLOCK_MONOTONIC, &started)
    writePages(writer, 1_200)
    let database = try #require(state.database)
    // The writer's thread writes them; the loop hears back. No write checkpointed: the WAL holds
    // every frame of the burst (SQLite alone checkpoints inside the write that takes the WAL past
    // 1,000 frames).
    run(loop, until: { writer.inFlight == 0 }, seconds: 60)
    let frames = database.locked { database.walFrames }
    #expect(frames >= 1_200, "the WAL holds \(frames) frames after 1,200 one-page writes")
    #expect((walSize(directory) ?? 0) >= 1_200 * 4096)
    func elapsed() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return (now.tv_sec - started.tv_sec) * 1000 + (now.tv_nsec - started.tv_nsec) / 1_000_000
    }
    run(loop, until: { database.locked { database.walFrames } == 0 }, seconds: 20)
    let checkpointed = elapsed()
    #expect(database.locked { database.walFrames } == 0, "a grown WAL was not checkpointed within 20 s of the pause")
    #expect(checkpointed >= 250, "checkpointed \(checkpointed) ms after the last write, before the writes had paused for 300 ms")
    // Restarted, not truncated (writes may resume at once): the file is cut only when idle.
    #expect((walSize(directory) ?? 0) > 0)
    run(loop, until: { walSize(directory) == 0 }, seconds: 20)
    #expect(walSize(directory) == 0, "the idle checkpoint did not truncate the WAL")
    #expect(elapsed() >= 1_900, "truncated \(elapsed()) ms after the last write, before the 2 s idle interval")
    writer.shutdown()
}

@Test func aWALThatReachesItsBoundUnderWritesThatNeverPauseIsCheckpointedAtOnce() throws {
    let directory = try temporaryStateDirectory()
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let thread = SQLiteWriter(loop: loop)
    let limits = StateWriter.CheckpointLimits(busyFrames: 20, quietCheckpoint: .seconds(600), mostFrames: 60)
    let writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread, syncs: WriterSyncs(writer: thread), idleCheckpoint: .seconds(600), limits: limits)
    // All handed over before the loop hears of any: the writer's thread keeps the bound itself.
    writer.write("filler table") { db in try db.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)") }
    for index in 0..<200 {
        writer.write("filler \(index)") { db in try db.execute("INSERT INTO filler VALUES (randomblob(3000))") }
    }
    run(loop, until: { writer.inFlight == 0 }, seconds: 60)
    #expect(writer.inFlight == 0, "the writer wrote all 200 within 60 s")
    let size = walSize(directory) ?? 0
    #expect(size > 0 && size < 70 * 4096, "the WAL file stays bounded: \(size) bytes with a bound of 60 frames")
    writer.shutdown()
}

@Test func anAgentThatWritesNothingIsToldItIsIdleOnceTheIdleIntervalHasPassedSinceItsStart() throws {
    let directory = try temporaryStateDirectory()
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let thread = SQLiteWriter(loop: loop)
    let writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread, syncs: WriterSyncs(writer: thread), idleCheckpoint: .milliseconds(200))
    var idleCalls = 0
    writer.onIdle = { idleCalls += 1 }
    writer.watchIdleFromStart()
    var started = timespec()
    clock_gettime(CLOCK_MONOTONIC, &started)
    run(loop, until: { idleCalls > 0 }, seconds: 20)
    var ended = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ended)
    let waited = (ended.tv_sec - started.tv_sec) * 1000 + (ended.tv_nsec - started.tv_nsec) / 1_000_000
    #expect(idleCalls == 1)
    #expect(waited >= 150, "told it was idle \(waited) ms after the start, before the idle interval")
    writer.shutdown()
}

@Test func anAgentThatWroteAtStartIsToldItIsIdleByItsCheckpointNotByTheStart() throws {
    let directory = try temporaryStateDirectory()
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let thread = SQLiteWriter(loop: loop)
    let writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread, syncs: WriterSyncs(writer: thread), idleCheckpoint: .milliseconds(300))
    var idleCalls = 0
    writer.onIdle = { idleCalls += 1 }
    writer.write("ledger") { db in try db.execute("INSERT INTO budget_ledger VALUES ('d1', 1)") }
    run(loop, until: { idleCalls > 0 && walSize(directory) == 0 }, seconds: 20)
    // Both notices have a second's slack: the start's may come after the checkpoint's, when
    // nothing is written any more. It must not say it again.
    writer.watchIdleFromStart()
    var settled = false
    loop.schedule(after: .milliseconds(1_500)) { settled = true }  // past the start notice's 1 s slack
    run(loop, until: { settled }, seconds: 20)
    #expect(idleCalls == 1)
    writer.shutdown()
}
