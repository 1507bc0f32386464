// SPDX-License-Identifier: Apache-2.0
@testable import AgentCLI
import AgentProtocol
import Testing

/// `agentctl metrics --json`: every field, pinned in Tests/Golden/json/metrics.json and documented
/// in docs/json.md (JSONDocumentationTests walks it).
struct MetricsGoldenTests {
    static let snapshot = MetricsSnapshot(
        version: "0.1.0", startedAt: 1_796_000_000, jobCount: 3, configErrorCount: 1, paused: false,
        stateWritable: true,
        running: [KindCount(kind: .refresh, runCount: 0), KindCount(kind: .processing, runCount: 1),
                  KindCount(kind: .continued, runCount: 0)],
        pending: [KindCount(kind: .refresh, runCount: 2), KindCount(kind: .processing, runCount: 0),
                  KindCount(kind: .continued, runCount: 1)],
        budgets: [BudgetFigures(manifest: "com.example.photos", dailyLaunchCount: 12, spentLaunchCount: 12,
                                leftLaunchCount: 0, refillsAt: 1_796_079_600),
                  BudgetFigures(manifest: "local", dailyLaunchCount: 48, spentLaunchCount: 5, leftLaunchCount: 43,
                                refillsAt: 1_796_079_600)],
        runsEnded: [RunsEnded(identifier: "com.example.demo.refresh", stopReasonLabel: "success", runCount: 12),
                    RunsEnded(identifier: "com.example.demo.refresh", stopReasonLabel: "expired_max_runtime", runCount: 1)],
        durations: [DurationHistogram(kind: .refresh, buckets: [DurationBucket(upperBoundSeconds: 1, runCount: 9),
                                                                 DurationBucket(upperBoundSeconds: 5, runCount: 12)],
                                      runCount: 13, sumSeconds: 41.5)],
        jobs: [JobFigures(identifier: "com.example.demo.refresh", kind: .refresh, lastSuccessAt: 1_796_003_600_250,
                          freshDayShare: 6.0 / 7)],
        conditions: ConditionFigures(externalPower: false, batteryPercent: 64, thermal: "nominal", lowPower: false,
                                     network: true, metered: false, memoryPressure: false))

    @Test func metricsJSON() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(Self.snapshot), matches: "json/metrics.json")
    }

    @Test func theJSONReadsBackAsTheSameFiguresAndText() throws {
        let line = try MessageCoding.encodeLine(ControlResponseFields(.success(.metrics(Self.snapshot))))
        let decoded = try MessageCoding.decode(ControlResponseFields.self, from: line).response(to: .metrics).get().metrics()
        #expect(decoded == Self.snapshot)
        #expect(PrometheusText.render(decoded) == PrometheusText.render(Self.snapshot))
    }
}
