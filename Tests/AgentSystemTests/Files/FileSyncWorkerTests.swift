// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

/// The state log's sync off the loop: real files, a real thread, outcomes through a real loop.
@Suite struct FileSyncWorkerTests {
    /// A directory with `state.db` (and `state.db-wal` unless `withLog` is false).
    private static func directory(withLog: Bool = true) throws -> ConfigTempDirectory {
        let base = try ConfigTempDirectory()
        for name in withLog ? ["state.db", "state.db-wal"] : ["state.db"] {
            try ConfigFS.write(base.at(name), "data")
        }
        return base
    }

    /// A worker on a database with its log, reporting through a mailbox on a real loop.
    private final class Rig {
        let base: ConfigTempDirectory
        let loop: EventLoop
        var outcomes: [FileSyncWorker.Outcome] = []
        private(set) var mailbox: Mailbox<FileSyncWorker.Outcome>?
        private(set) var worker: FileSyncWorker!

        init() throws {
            base = try FileSyncWorkerTests.directory()
            loop = try EventLoop()
            let mailbox = try Mailbox<FileSyncWorker.Outcome>(loop: loop) { [unowned self] in self.outcomes += $0 }
            self.mailbox = mailbox
            worker = FileSyncWorker(database: base.at("state.db"), report: mailbox.sender)
        }

        deinit {
            worker.finish()
            mailbox?.close()
        }

        /// Runs the loop until the outcomes cover request `number` (or 30 s pass).
        func run(until number: UInt64) -> Bool {
            let deadline = MonotonicInstant.now() + .seconds(30)
            while MonotonicInstant.now() < deadline {
                if let last = outcomes.last, last.upTo >= number { return true }
                loop.runOnce(timeout: .seconds(1))
            }
            return false
        }
    }

    @Test func aRequestIsAnsweredOnTheLoopOnceTheLogIsSynced() throws {
        let rig = try Rig()
        rig.worker.request(1)
        #expect(rig.outcomes.isEmpty, "the outcome comes through the loop, never inside request()")
        #expect(rig.run(until: 1))
        #expect(rig.outcomes == [FileSyncWorker.Outcome(upTo: 1, failure: nil)])
    }

    /// How many syncs 50 requests take depends on the thread's timing (fewer when it is slower
    /// than the requests); what holds always: outcomes come in order and the last covers all.
    @Test func oneSyncAnswersEveryRequestMadeBeforeIt() throws {
        let rig = try Rig()
        for number in 1...50 as ClosedRange<UInt64> { rig.worker.request(number) }
        #expect(rig.run(until: 50))
        #expect(rig.outcomes.count <= 50)
        #expect(rig.outcomes.map(\.upTo) == rig.outcomes.map(\.upTo).sorted())
        #expect(rig.outcomes.allSatisfy { $0.failure == nil })
    }

    @Test func withoutALogTheDatabaseFileIsSynced() throws {
        let base = try Self.directory(withLog: false)
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
        let rig = try Rig()
        rig.worker.request(1)
        rig.worker.finish()
        rig.worker.request(2)
        #expect(rig.run(until: 2))
        #expect(rig.outcomes.last == FileSyncWorker.Outcome(upTo: 2, failure: nil))
    }
}
