// SPDX-License-Identifier: Apache-2.0
import AgentCore
@testable import AgentDaemon
import Testing

/// The counters `agentctl metrics` takes from the agent's memory (issue #16).
struct RunMetricsTests {
    let a = Identifier(rawValue: "com.example.a")!
    let b = Identifier(rawValue: "com.example.b")!

    @Test func runsEndedCountPerJobAndStopReasonKind() {
        var metrics = RunMetrics()
        metrics.runEnded(job: a, kind: .refresh, stop: .failure(exitStatus: 1), seconds: 1)
        metrics.runEnded(job: a, kind: .refresh, stop: .failure(exitStatus: 2), seconds: 1)
        metrics.runEnded(job: a, kind: .refresh, stop: .success, seconds: 1)
        metrics.runEnded(job: b, kind: .processing, stop: .expired(.maxRuntime), seconds: 600)
        let ended = metrics.runsEnded { _ in true }
        #expect(ended.map { "\($0.identifier) \($0.stopReasonLabel) \($0.runCount)" } == [
            "com.example.a failure 2", "com.example.a success 1", "com.example.b expired_max_runtime 1",
        ])
        // A job that no longer exists has no series.
        #expect(metrics.runsEnded { $0 == a }.allSatisfy { $0.identifier == "com.example.a" })
    }

    @Test func durationsAreCumulativeBucketsPerKind() throws {
        var metrics = RunMetrics()
        for seconds in [0.2, 4, 4.5, 100_000] { metrics.runEnded(job: a, kind: .refresh, stop: .success, seconds: seconds) }
        let refresh = try #require(metrics.durations.first { $0.kind == .refresh })
        let counts = refresh.buckets.map(\.runCount)
        #expect(refresh.runCount == 4)
        #expect(refresh.sumSeconds == 100_008.7)
        #expect(counts.first == 1)
        #expect(counts[1] == 3)
        // Above the last bound: only in +Inf (the run count).
        #expect(counts.last == 3)
        #expect(counts == counts.sorted())
        #expect(refresh.buckets.map(\.upperBoundSeconds) == RunMetrics.bucketBounds)
        #expect(metrics.durations.map(\.kind) == JobKind.allCases)
        #expect(metrics.durations.first { $0.kind == .continued }?.runCount == 0)
    }
}
