// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

/// The state log's sync off the loop: real files, a real thread, outcomes through a real loop.
@Suite struct FileSyncWorkerTests {
    /// A directory with `state.db` (and `state.db-wal` unless `withLog` is false).
    private func directory(withLog: Bool = true) throws -> ConfigTempDirectory {
        let base = try ConfigTempDirectory()
        for name in withLog ? ["state.db", "state.db-wal"] : ["state.db"] {
            try ConfigFS.write(base.at(name), "data")
        }
        return base
    }

    /// Runs `loop` until `outcomes` covers request `number` (or 30 s pass).
    private func run(_ loop: EventLoop, until number: UInt64, _ outcomes: () -> [FileSyncWorker.Outcome]) -> Bool {
        var done = false
        let deadline = MonotonicInstant.now() + .seconds(30)
        while !done, MonotonicInstant.now() < deadline {
            loop.runOnce(timeout: .seconds(1))
            done = outcomes().last.map { $0.upTo >= number } ?? false
        }
        return done
    }

    @Test func aRequestIsAnsweredOnTheLoopOnceTheLogIsSynced() throws {
        let base = try directory()
        let loop = try EventLoop()
        var outcomes: [FileSyncWorker.Outcome] = []
        let mailbox = try Mailbox<FileSyncWorker.Outcome>(loop: loop) { outcomes += $0 }
        let worker = FileSyncWorker(database: base.at("state.db"), report: mailbox.sender)
        worker.request(1)
        #expect(outcomes.isEmpty, "the outcome comes through the loop, never inside request()")
        #expect(run(loop, until: 1) { outcomes })
        #expect(outcomes == [FileSyncWorker.Outcome(upTo: 1, failure: nil)])
        worker.finish()
        mailbox.close()
    }

    /// How many syncs 50 requests take depends on the thread's timing (fewer when it is slower
    /// than the requests); what holds always: outcomes come in order and the last covers all.
    @Test func oneSyncAnswersEveryRequestMadeBeforeIt() throws {
        let base = try directory()
        let loop = try EventLoop()
        var outcomes: [FileSyncWorker.Outcome] = []
        let mailbox = try Mailbox<FileSyncWorker.Outcome>(loop: loop) { outcomes += $0 }
        let worker = FileSyncWorker(database: base.at("state.db"), report: mailbox.sender)
        for number in 1...50 as ClosedRange<UInt64> { worker.request(number) }
        #expect(run(loop, until: 50) { outcomes })
        #expect(outcomes.count <= 50)
        #expect(outcomes.map(\.upTo) == outcomes.map(\.upTo).sorted())
        #expect(outcomes.allSatisfy { $0.failure == nil })
        worker.finish()
        mailbox.close()
    }

    @Test func withoutALogTheDatabaseFileIsSynced() throws {
        let base = try directory(withLog: false)
        #expect(FileSyncWorker.syncNow(base.at("state.db")) == nil)
    }

    @Test func aMissingDatabaseIsAFailureNamingTheFile() throws {
        let base = try ConfigTempDirectory()
        let failure = try #require(FileSyncWorker.syncNow(base.at("state.db")))
        #expect(failure.call == "open")
        #expect(failure.errno == ENOENT)
        #expect(failure.path == base.at("state.db"))
    }

    @Test func afterFinishARequestIsSyncedAtOnceAndStillReported() throws {
        let base = try directory()
        let loop = try EventLoop()
        var outcomes: [FileSyncWorker.Outcome] = []
        let mailbox = try Mailbox<FileSyncWorker.Outcome>(loop: loop) { outcomes += $0 }
        let worker = FileSyncWorker(database: base.at("state.db"), report: mailbox.sender)
        worker.request(1)
        worker.finish()
        worker.request(2)
        #expect(run(loop, until: 2) { outcomes })
        #expect(outcomes.last == FileSyncWorker.Outcome(upTo: 2, failure: nil))
        mailbox.close()
    }
}
