// SPDX-License-Identifier: Apache-2.0
import AgentCore
@testable import AgentProtocol
import Testing

/// The Prometheus text `agentctl metrics` prints and `MetricsFile=` holds (issue #16).
struct PrometheusTextTests {
    static let snapshot = MetricsSnapshot(
        version: "0.1.0", startedAt: 1_796_000_000, jobCount: 2, configErrorCount: 1, paused: false,
        stateWritable: true,
        running: [KindCount(kind: .refresh, runCount: 0), KindCount(kind: .processing, runCount: 1)],
        pending: [KindCount(kind: .refresh, runCount: 2), KindCount(kind: .processing, runCount: 0)],
        budgets: [BudgetFigures(manifest: "all", dailyLaunchCount: 48, spentLaunchCount: 5, leftLaunchCount: 43)],
        runsEnded: [RunsEnded(identifier: "com.example.a", stopReasonLabel: "expired_max_runtime", runCount: 3)],
        durations: [DurationHistogram(kind: .refresh, buckets: [DurationBucket(upperBoundSeconds: 1, runCount: 1),
                                                                 DurationBucket(upperBoundSeconds: 5, runCount: 3)],
                                      runCount: 4, sumSeconds: 12.5)],
        jobs: [JobFigures(identifier: "com.example.a", kind: .refresh, lastSuccessAt: 1_796_000_100_250, freshDayShare: 3.0 / 7),
               JobFigures(identifier: "com.example.b", kind: .processing, lastSuccessAt: nil, freshDayShare: 0)],
        conditions: ConditionFigures(externalPower: false, batteryPercent: 42, thermal: "serious", lowPower: true,
                                     network: true, metered: true, memoryPressure: false))

    var lines: [String] { PrometheusText.render(Self.snapshot).split(separator: "\n").map(String.init) }

    @Test func everySampleBelongsToAFamilyWithHelpAndTypeBeforeIt() {
        var declared: [String: String] = [:]
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                declared[String(parts[2])] = String(parts[3])
            } else if !line.hasPrefix("# HELP ") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                let family = declared.keys.first { name == $0 || (declared[$0] == "histogram" && [$0 + "_bucket", $0 + "_sum", $0 + "_count"].contains(name)) }
                #expect(family != nil, "\(name) has no TYPE line before it")
                #expect(name.hasPrefix("agentd_"))
            }
        }
        #expect(lines.filter { $0.hasPrefix("# HELP ") }.count == declared.count)
    }

    @Test func theFiguresAreTheSnapshots() {
        let expected = [
            "agentd_build_info{version=\"0.1.0\"} 1",
            "agentd_start_time_seconds 1796000000",
            "agentd_config_errors 1",
            "agentd_runs_running{kind=\"processing\"} 1",
            "agentd_runs_pending{kind=\"refresh\"} 2",
            "agentd_runs_ended_total{identifier=\"com.example.a\",stop_reason=\"expired_max_runtime\"} 3",
            "agentd_run_duration_seconds_bucket{kind=\"refresh\",le=\"1\"} 1",
            "agentd_run_duration_seconds_bucket{kind=\"refresh\",le=\"5\"} 3",
            "agentd_run_duration_seconds_bucket{kind=\"refresh\",le=\"+Inf\"} 4",
            "agentd_run_duration_seconds_sum{kind=\"refresh\"} 12.5",
            "agentd_run_duration_seconds_count{kind=\"refresh\"} 4",
            "agentd_job_last_success_timestamp_seconds{identifier=\"com.example.a\",kind=\"refresh\"} 1796000100.25",
            "agentd_job_run_rate_ratio{identifier=\"com.example.b\",kind=\"processing\"} 0",
            "agentd_budget_launches_spent{manifest=\"all\"} 5",
            "agentd_budget_launches_left{manifest=\"all\"} 43",
            "agentd_external_power 0",
            "agentd_battery_percent 42",
            "agentd_thermal_state{state=\"serious\"} 1",
            "agentd_thermal_state{state=\"nominal\"} 0",
            "agentd_low_power 1",
            "agentd_network_up 1",
            "agentd_network_metered 1",
        ]
        for line in expected { #expect(lines.contains(line), "missing: \(line)") }
        // No last success on record: no sample rather than a 0 that would read as 1970.
        #expect(!lines.contains { $0.hasPrefix("agentd_job_last_success_timestamp_seconds{identifier=\"com.example.b\"}") })
    }

    @Test func theSameSnapshotRendersTheSameBytes() {
        #expect(PrometheusText.render(Self.snapshot) == PrometheusText.render(Self.snapshot))
        #expect(PrometheusText.render(Self.snapshot).hasSuffix("\n"))
    }

    @Test func labelValuesAreEscaped() {
        #expect(PrometheusText.escaped("a\"b\\c\nd") == "a\\\"b\\\\c\\nd")
    }

    @Test func numbersAreWrittenAsPrometheusReadsThem() {
        #expect(PrometheusText.number(3) == "3")
        #expect(PrometheusText.number(0.5) == "0.5")
        #expect(PrometheusText.number(.infinity) == "+Inf")
        #expect(PrometheusText.number(.nan) == "NaN")
    }

    @Test func theStopReasonLabelIsTheKindWithoutNumbers() {
        #expect(StopReason.failure(exitStatus: 3).kindLabel == "failure")
        #expect(StopReason.crashed(signal: 11).kindLabel == "crashed")
        #expect(StopReason.expired(.maxRuntime).kindLabel == "expired_max_runtime")
        #expect(StopReason.expired(.noProgress).kindLabel == "expired_no_progress")
        #expect(StopReason.spawnFailed("no such file").kindLabel == "spawn_failed")
        #expect(StopReason.agentRestart.kindLabel == "agent_restart")
        #expect(StopReason.skipped("ConditionPathExists=/x").kindLabel == "skipped")
        #expect(StopReason.kindLabels.count == 7 + ExpiryReason.allCases.count)
        #expect(StopReason.kindLabels.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }

    @Test func theRunRateCountsDaysWithASuccessWithin24HoursOfThePreviousOne() {
        let now: Int64 = 10 * 86_400
        // Successes every 12 h for the last 3 days: days 0, 1, 2 are fresh.
        let starts = stride(from: now - 3 * 86_400 + 3600, to: now, by: 43_200).map { Int64($0) }
        #expect(FreshDays.share(successStarts: starts, now: now) == 3.0 / 7)
        // One success alone has no previous one to be within 24 h of.
        #expect(FreshDays.share(successStarts: [now - 100], now: now) == 0)
        // Two days apart: not fresh.
        #expect(FreshDays.share(successStarts: [now - 3 * 86_400, now - 100], now: now) == 0)
        #expect(FreshDays.share(successStarts: [], now: now) == 0)
    }
}

/// A machine at the scale the scheduler is built for (10,000 jobs) renders its metrics quickly:
/// the agent renders on its loop thread, at most once per MetricsInterval=.
struct PrometheusTextScaleTests {
    @Test func tenThousandJobsRenderInWellUnderASecond() {
        var snapshot = PrometheusTextTests.snapshot
        snapshot.jobs = (0..<10_000).map {
            JobFigures(identifier: "com.example.job\($0)", kind: .refresh, lastSuccessAt: 1_796_000_000_500, freshDayShare: 5.0 / 7)
        }
        snapshot.runsEnded = (0..<10_000).map { RunsEnded(identifier: "com.example.job\($0)", stopReasonLabel: "success", runCount: $0) }
        let clock = ContinuousClock()
        var text = ""
        let took = clock.measure { text = PrometheusText.render(snapshot) }
        #expect(text.utf8.count > 1_000_000)
        #expect(took < .seconds(2), "rendering 10,000 jobs took \(took)")
        print("metrics: rendered 10,000 jobs (\(text.utf8.count) bytes) in \(took)")
    }
}
