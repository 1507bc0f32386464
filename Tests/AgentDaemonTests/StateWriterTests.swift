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

@Test func theWALIsCheckpointedOnceWritesHaveStoppedForTheIdleInterval() throws {
    var template = Array("/tmp/agentd-writer-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
        return String(cString: result)
    }
    let directory = try #require(made)
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let writer = StateWriter(state: state, loop: loop, log: Logger(), idleCheckpoint: .milliseconds(300))
    for day in 1...20 {
        writer.write("ledger \(day)") { db in try db.execute("INSERT INTO budget_ledger VALUES ('d\(day)', 1)") }
    }
    #expect((walSize(directory) ?? 0) > 0, "the writes went to the WAL")
    var started = timespec()
    clock_gettime(CLOCK_MONOTONIC, &started)
    run(loop, until: { walSize(directory) == 0 }, seconds: 20)
    var ended = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ended)
    let waited = (ended.tv_sec - started.tv_sec) * 1000 + (ended.tv_nsec - started.tv_nsec) / 1_000_000
    #expect(walSize(directory) == 0, "no checkpoint within 20 s of the last write")
    #expect(waited >= 250, "checkpointed \(waited) ms after the last write, before the idle interval")
    writer.shutdown()
}
