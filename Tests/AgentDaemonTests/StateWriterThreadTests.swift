// SPDX-License-Identifier: Apache-2.0
import AgentStore
import AgentSystem
import Glibc
import Synchronization
import Testing
@testable import AgentDaemon

/// The threads a write body ran on, recorded from the writer's thread.
private final class Threads: Sendable {
    let seen = Mutex<[pthread_t]>([])
}

private func stateDirectory() throws -> String {
    var template = Array("/tmp/agentd-writer-thread-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
        return String(cString: result)
    }
    return try #require(made)
}

/// Runs `loop` until `done` holds (checked every 10 ms) or `seconds` have passed.
private func run(_ loop: EventLoop, until done: @escaping () -> Bool, seconds: Int64) {
    func check() {
        if done() { loop.stop(); return }
        loop.schedule(after: .milliseconds(10)) { check() }
    }
    loop.schedule(after: .seconds(seconds)) { loop.stop() }
    check()
    loop.run()
}

@Test func everyWriteRunsOnTheWritersThreadNotTheLoopsAndInTheOrderHandedOver() throws {
    let directory = try stateDirectory()
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let thread = SQLiteWriter(loop: loop)
    let writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread, syncs: WriterSyncs(writer: thread))
    let threads = Threads()
    for day in 1...50 {
        writer.write("ledger \(day)") { db in
            threads.seen.withLock { $0.append(pthread_self()) }
            try db.execute("INSERT INTO budget_ledger VALUES ('d\(day)', \(day))")
        }
    }
    // Handed over, not written: the loop has not waited for any of them.
    #expect(writer.inFlight + writer.unwrittenCount == 50)
    run(loop, until: { writer.inFlight == 0 && writer.unwrittenCount == 0 }, seconds: 30)
    let ran = threads.seen.withLock { $0 }
    #expect(ran.count == 50)
    #expect(ran.allSatisfy { pthread_equal($0, pthread_self()) == 0 }, "a write ran on the loop's thread")
    let days = try #require(try state.reading { store in
        let statement = try store.database.prepare("SELECT launches FROM budget_ledger ORDER BY rowid")
        var values: [Int64] = []
        while try statement.step() { values.append(statement.int64(0)) }
        return values
    })
    #expect(days == Array(1...50), "written out of order: \(days)")
    writer.shutdown()
}

@Test func aRequestIsAnsweredOnlyOnceItsWriteIsInTheDatabaseAndSynced() throws {
    let directory = try stateDirectory()
    defer { _ = system("rm -rf '\(directory)'") }
    let state = StateDirectory(path: directory)
    #expect(state.open())
    let loop = try EventLoop()
    let thread = SQLiteWriter(loop: loop)
    let writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread, syncs: WriterSyncs(writer: thread))
    var answered: [(row: Bool, failure: StateRefusal?)] = []
    for day in 1...10 {
        let handed = writer.attempt("request \(day)", { db in
            try db.execute("INSERT INTO budget_ledger VALUES ('r\(day)', 1)")
        }, takeBack: { Issue.record("the write failed") })
        #expect(handed)
        writer.syncRequestCommit()
        writer.afterSync { synced in
            let row = (try? state.reading { store -> Bool in
                let statement = try store.database.prepare("SELECT COUNT(*) FROM budget_ledger WHERE day = 'r\(day)'")
                return try statement.step() && statement.int64(0) == 1
            }) ?? nil
            if case .failure(let refusal) = synced {
                answered.append((row == true, refusal))
            } else {
                answered.append((row == true, nil))
            }
        }
    }
    #expect(answered.isEmpty, "answered before the writer reported")
    run(loop, until: { answered.count == 10 }, seconds: 30)
    #expect(answered.count == 10)
    #expect(answered.allSatisfy { $0.row && $0.failure == nil }, "\(answered)")
    writer.shutdown()
}

@Test func theJobThreadsQueueIsBoundedAndItsJobsRunInOrder() throws {
    let loop = try EventLoop()
    var outcomes: [Int] = []
    let mailbox = try Mailbox<Int>(loop: loop) { outcomes += $0 }
    // The first job waits until the pipe is written: meanwhile the queue fills.
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let (readEnd, writeEnd) = (fds[0], fds[1])
    defer { close(readEnd); close(writeEnd) }
    let worker = JobThread<Int, Int>(capacity: 4, report: mailbox.sender) { jobs in
        if jobs.first == 0 {
            var byte: UInt8 = 0
            _ = read(readEnd, &byte, 1)
        }
        return jobs
    }
    #expect(worker.submit(0) == .queued)
    run(loop, until: { worker.waiting == 0 }, seconds: 10) // the thread took job 0 and waits
    for job in 1...4 { #expect(worker.submit(job) == .queued) }
    #expect(worker.submit(5) == .full)
    #expect(worker.submit(5, beyondCapacity: true) == .queued)
    var byte: UInt8 = 1
    #expect(write(writeEnd, &byte, 1) == 1)
    run(loop, until: { outcomes.count == 6 }, seconds: 10)
    #expect(outcomes == [0, 1, 2, 3, 4, 5])
    worker.finish()
    #expect(worker.submit(6) == .unavailable)
    mailbox.close()
}
