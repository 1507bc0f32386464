// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc
import Testing
@testable import AgentStore

/// The runs table is bounded (RunRetention): old finished runs go, each job's newest stay.
@Suite("Run retention")
struct RunRetentionStoreTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_800_000_000_000
    static let retention = RunRetention(age: .seconds(30 * 86_400), keptPerJob: 3, jobsPerPass: 10,
                                        removalsPerPass: 100, spacing: .seconds(3_600))
    static var cutoff: Int64 { retention.cutoff(nowMilliseconds: now) }

    private func withStore(_ body: (RunStore) throws -> Void) throws {
        var template = Array("/tmp/agentd-retention-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        let dir = try #require(made, "mkdtemp: errno \(errno)")
        defer { _ = system("rm -rf '\(dir)'") }
        let db = try Database(path: dir + "/state.db")
        try Migrations.apply(to: db)
        try body(RunStore(database: db))
    }

    /// Finished runs of `identifier` (under `job`), one a day, `daysAgo` each.
    private func add(_ store: RunStore, _ identifier: String, job: String? = nil, daysAgo: [Int64],
                     live: Bool = false, from number: Int) throws {
        for (offset, days) in daysAgo.enumerated() {
            let started = Self.now - days * Self.day
            let run = StoredRun(runID: "r\(number + offset)", identifier: identifier, kind: .processing,
                                reason: .scheduled, startedAt: started, endedAt: live ? nil : started + 1_000,
                                stopReason: live ? nil : .success, logTail: "line", job: job)
            try store.insert(run)
            if !live { try store.finish(run) }
        }
    }

    private func runs(_ store: RunStore) throws -> Set<String> {
        Set(try store.history(identifier: nil, limit: 1_000).map(\.runID))
    }

    @Test func finishedRunsPastTheAgeGoButEachJobKeepsItsNewest() throws {
        try withStore { store in
            // local.minute: ten runs 31–40 days old and two recent ones; local.monthly: three old ones.
            try add(store, "local.minute", daysAgo: Array(31...40), from: 100)
            try add(store, "local.minute", daysAgo: [2, 1], from: 200)
            try add(store, "local.monthly", daysAgo: [90, 60, 31], from: 300)
            let pass = try store.prune(Self.retention, cutoff: Self.cutoff, after: nil)
            #expect(pass == RetentionPass(removed: 9, resumeAfter: nil, finished: true))
            // The minute job keeps its newest three (the two recent and the 31-day-old r100), the
            // monthly job all three: they are its newest.
            #expect(try runs(store) == ["r100", "r200", "r201", "r300", "r301", "r302"])
        }
    }

    @Test func recentRunsAndLiveRunsStayHoweverMany() throws {
        try withStore { store in
            try add(store, "local.busy", daysAgo: [29, 20, 10, 5, 1], from: 100)
            try add(store, "local.busy", daysAgo: [45], live: true, from: 200)
            let pass = try store.prune(Self.retention, cutoff: Self.cutoff, after: nil)
            #expect(pass.removed == 0)
            #expect(try runs(store).count == 6)
        }
    }

    @Test func aSubmissionsDynamicIdentifiersCountWithTheirJob() throws {
        try withStore { store in
            try add(store, "com.example.export.a", job: "com.example.export", daysAgo: [50, 49, 48], from: 100)
            try add(store, "com.example.export.b", job: "com.example.export", daysAgo: [3, 2, 1], from: 200)
            _ = try store.prune(Self.retention, cutoff: Self.cutoff, after: nil)
            #expect(try runs(store) == ["r200", "r201", "r202"])
        }
    }

    @Test func aPassStopsAtItsBoundsAndTheNextTakesUpWhereItStopped() throws {
        try withStore { store in
            try add(store, "local.a", daysAgo: Array(31...40), from: 100)
            try add(store, "local.b", daysAgo: Array(31...40), from: 200)
            var bounded = Self.retention
            bounded.removalsPerPass = 4
            // local.a has 7 to remove: two passes of 4 and 3, then local.b's 7.
            var pass = try store.prune(bounded, cutoff: Self.cutoff, after: nil)
            #expect(pass == RetentionPass(removed: 4, resumeAfter: nil, finished: false))
            pass = try store.prune(bounded, cutoff: Self.cutoff, after: pass.resumeAfter)
            #expect(pass.removed == 4 && pass.resumeAfter == "local.a" && !pass.finished)
            var removed = 8
            while !pass.finished {
                pass = try store.prune(bounded, cutoff: Self.cutoff, after: pass.resumeAfter)
                removed += pass.removed
            }
            #expect(removed == 14)
            // The oldest went first: each keeps its three newest.
            #expect(try runs(store) == ["r100", "r101", "r102", "r200", "r201", "r202"])

            var fewJobs = Self.retention
            fewJobs.jobsPerPass = 1
            try add(store, "local.c", daysAgo: Array(31...35), from: 300)
            let first = try store.prune(fewJobs, cutoff: Self.cutoff, after: nil)
            #expect(first == RetentionPass(removed: 0, resumeAfter: "local.a", finished: false))
        }
    }

    @Test func theCutoffIsTheAgeBeforeNow() {
        #expect(Self.cutoff == Self.now - 30 * Self.day)
        #expect(RunRetention.standard.cutoff(nowMilliseconds: 0) == -30 * Self.day)
    }
}
