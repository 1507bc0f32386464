// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
@testable import AgentCLI

/// Fixed values for the `--json` goldens not drawn from the tables' fixtures: waiting work with
/// its earliest begin and title, an explain timeline, and runs that ended every way a stop
/// reason has structured fields for.
enum JSONFixture {
    static let now = Fixture.now
    static let nowMs = Fixture.nowMs

    static let pending = [
        PendingSummary(identifier: "local.refresh-feeds", kind: .refresh, waitingFor: "interval (earliest 14:05)",
                       earliestBegin: Double(now) + 2100.25, reason: "interval", until: Double(now) + 2100.25),
        PendingSummary(identifier: "local.photos.export.holidays", kind: .continued, waitingFor: "max concurrent",
                       title: "Exporting Holidays"),
        PendingSummary(identifier: "local.photos.sync", kind: .processing, waitingFor: "external power",
                       earliestBegin: Double(now) + 600,
                       request: RunRequestOptions(earliestBegin: Double(now) + 600, requiresNetwork: .unmetered,
                                                  requiresExternalPower: true)),
    ]

    static let timeline = [
        TimelineRecord(time: Double(now) - 3600.5, event: "due (interval)"),
        TimelineRecord(time: Double(now) - 3599, event: "deferred: external power"),
        TimelineRecord(time: Double(now) - 60, event: "launched r000045 (interval)"),
        TimelineRecord(time: Double(now) - 58.875, event: "ended r000045: spawn-failed(no such file: /usr/lib/agentd/plugins/backup)"),
    ]

    static let explainRuns = [
        RunRecord(runID: "r000045", identifier: "local.backup", kind: .processing, reason: "interval",
                  startedAt: nowMs - 60_000, endedAt: nowMs - 58_875,
                  stopReason: "spawn-failed(no such file: /usr/lib/agentd/plugins/backup)", exitStatus: nil, signal: nil,
                  progress: nil, title: nil, logTail: []),
        RunRecord(runID: "r000038", identifier: "local.backup", kind: .processing, reason: "interval",
                  startedAt: nowMs - 7_200_000, endedAt: nowMs - 7_100_000, stopReason: "expired(limit)",
                  exitStatus: nil, signal: 9, progress: 0.5, title: "Backing up",
                  logTail: ["agentd: run r000038 stopped at its limit: TasksMax=20 (the kernel refused 3 forks)"])
            .counting(completed: 21, of: 42),
    ]

    static let explain = ExplainReport(kind: .processing, chainedBy: ["local.snapshot"], timeline: timeline,
                                       waiting: [pending[0]], runs: explainRuns)

    /// `stats` over the tables' history, as agentctl computes it.
    static var stats: [RunStatistics] { RunStatistics.compute(Fixture.runs + explainRuns, now: now) }
}

extension RunRecord {
    /// The record of a run whose last line was `PROGRESS=completed/total`.
    func counting(completed: Int64, of total: Int64) -> RunRecord {
        var record = self
        record.completedUnitCount = completed
        record.totalUnitCount = total
        return record
    }
}
