// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentStore
import AgentSystem
import Glibc
import Testing
@testable import AgentDaemon

/// The runs table is trimmed by passes on the state writer (RunHistoryPruner): at the database's
/// opening, then after a run's end at most once per `spacing`; a pass stopped at its bounds is
/// followed by the next.
@Suite(.serialized) struct RunHistoryPrunerTests {
    static let day: Int64 = 86_400_000

    private struct Fixture {
        let directory: String
        let state: StateDirectory
        let loop: EventLoop
        let writer: StateWriter

        init() throws {
            var template = Array("/tmp/agentd-pruner-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
                guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
                return String(cString: result)
            }
            directory = try #require(made, "mkdtemp: errno \(errno)")
            state = StateDirectory(path: directory)
            #expect(state.open())
            loop = try EventLoop()
            let thread = SQLiteWriter(loop: loop)
            writer = StateWriter(state: state, loop: loop, log: Logger(), commits: thread,
                                 syncs: WriterSyncs(writer: thread))
            writer.databaseOpened()
        }

        /// `count` finished runs of `job`, a day apart, the newest `daysAgo` old.
        func addRuns(_ job: String, count: Int, daysAgo: Int64, from number: Int) throws {
            let now = loop.clock.realtimeMilliseconds
            let database = try #require(state.database)
            let store = RunStore(database: database)
            // Under the connection's lock, which the writer's thread takes for its jobs.
            try database.locked { try database.transaction {
                for index in 0..<count {
                    let started = now - (daysAgo + Int64(index)) * RunHistoryPrunerTests.day
                    let run = StoredRun(runID: "r\(number + index)", identifier: job, kind: .processing,
                                        reason: .scheduled, startedAt: started, endedAt: started + 1_000,
                                        stopReason: .success)
                    try store.insert(run)
                    try store.finish(run)
                }
            } }
        }

        func runCount() -> Int {
            state.reading { store in (try? store.history(identifier: nil, limit: 100_000).count) ?? -1 } ?? -1
        }

        /// Runs the loop until the pruner has finished its round and the writer reported.
        func settle(_ pruner: RunHistoryPruner) {
            func check() {
                if !pruner.isPruning && writer.inFlight == 0 { loop.stop(); return }
                loop.schedule(after: .milliseconds(10)) { check() }
            }
            loop.schedule(after: .seconds(20)) { self.loop.stop() }
            check()
            loop.run()
        }

        func finish() {
            writer.shutdown()
            _ = system("rm -rf '\(directory)'")
        }
    }

    private static func retention(spacing: Duration) -> RunRetention {
        RunRetention(age: .seconds(30 * 86_400), keptPerJob: 10, jobsPerPass: 2, removalsPerPass: 7,
                     spacing: spacing)
    }

    @Test func theOpeningPassRemovesEveryOldRunBeyondEachJobsNewestInPassesOfBoundedSize() throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        // Five jobs of 25 runs 31 days old and older: 15 each to remove, 7 a pass at most.
        for job in 0..<5 { try fixture.addRuns("local.j\(job)", count: 25, daysAgo: 31, from: job * 100) }
        let pruner = RunHistoryPruner(loop: fixture.loop, stateWriter: fixture.writer, log: Logger(),
                                      retention: Self.retention(spacing: .seconds(3_600)))
        pruner.databaseOpened()
        fixture.settle(pruner)
        #expect(fixture.runCount() == 50)
    }

    @Test func aRunsEndPrunesOnlyOnceTheSpacingHasPassed() throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let hourly = RunHistoryPruner(loop: fixture.loop, stateWriter: fixture.writer, log: Logger(),
                                      retention: Self.retention(spacing: .seconds(3_600)))
        hourly.databaseOpened()
        fixture.settle(hourly)
        try fixture.addRuns("local.a", count: 12, daysAgo: 40, from: 0)
        hourly.runEnded()
        fixture.settle(hourly)
        #expect(fixture.runCount() == 12, "an hour has not passed since the opening pass")

        let always = RunHistoryPruner(loop: fixture.loop, stateWriter: fixture.writer, log: Logger(),
                                      retention: Self.retention(spacing: .zero))
        always.databaseOpened()
        fixture.settle(always)
        try fixture.addRuns("local.b", count: 12, daysAgo: 40, from: 100)
        always.runEnded()
        fixture.settle(always)
        #expect(fixture.runCount() == 20)
    }
}
