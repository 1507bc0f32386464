// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// Small values of every answer payload, for the wire-line tests.
enum AnswerFixtures {
    static let waiting = PendingSummary(identifier: "local.backup", kind: .processing, waitingFor: "network",
                                        earliestBegin: 1_796_112_000, title: "Nightly", reason: "network")

    static var status: StatusReport {
        var report = StatusReport(version: "1.2.3", pid: 42, startedAt: 1_796_112_000, uptimeSeconds: 60,
                                  configDirectory: "/etc/agentd", stateDirectory: "/var/lib/agentd",
                                  socketPath: "/run/agentd/agentd.sock", manifestCount: 1, jobCount: 2,
                                  diagnostics: [], stateError: nil,
                                  running: [RunSummary(runID: "r000041", identifier: "local.tidy", kind: .refresh,
                                                       reason: "scheduled", pid: 7, startedAt: 1_796_112_030,
                                                       deadline: nil, title: "Tidying")],
                                  pending: [waiting], pendingCount: 1, paused: false)
        report.metricsFileProblem = nil
        return report
    }

    static let jobs = [JobSummary(identifier: "local.backup", kind: .processing, source: "jobs.d/backup.job",
                                  state: "registered", exec: ["/usr/bin/backup", "--all"], intervalSeconds: 3600)]

    static let runs = [RunRecord(runID: "r000040", identifier: "local.backup", kind: .processing, reason: "interval",
                                 startedAt: 1_796_112_000_000, endedAt: 1_796_112_060_000, stopReason: "success",
                                 exitStatus: 0, signal: nil, progress: 1, title: "Backing up", logTail: ["done"])]

    static let timeline = [TimelineRecord(time: 1_796_112_000.25, event: "launch")]

    static let gpus = [GPUSummary(name: "card0", detail: "i915")]

    static let inputs = MachineInputs(power: "ac", batteryPercent: nil, batteryStatus: nil, lowPower: false,
                                      lowPowerSource: "auto", thermal: "nominal", hottestZone: nil,
                                      hottestCelsius: nil, marginCelsius: nil, marginTrip: nil, network: true,
                                      memoryPressure: false, cpuBusy: false,
                                      sources: [InputSource(name: "uevent", state: .live)])

    static let metrics = MetricsSnapshot(version: "1.2.3", startedAt: 1_796_112_000, jobCount: 2, configErrorCount: 0,
                                         paused: false, stateWritable: true,
                                         running: [KindCount(kind: .refresh, runCount: 1)], pending: [],
                                         budgets: [], runsEnded: [], durations: [], jobs: [], conditions: nil)
}
