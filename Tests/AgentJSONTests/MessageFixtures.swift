// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// Every message the agent and agentctl exchange, filled as a busy agent fills them (after
/// Tests/AgentCLITests/Fixtures.swift), plus the scheduler's persisted state.
enum Messages {
    static let now: Int64 = 1_796_045_400
    static let nowMs = now * 1000

    static let inputs = MachineInputs(
        power: "battery", batteryPercent: 15, batteryStatus: "discharging", lowPower: true,
        lowPowerSource: "on (agentctl)", thermal: "fair", hottestZone: "x86_pkg_temp", hottestCelsius: 82,
        marginCelsius: 8, marginTrip: "passive", network: false, metered: "yes",
        meteredSource: "NetworkManager: guess-yes", memoryPressure: true, cpuBusy: true,
        sources: [InputSource(name: "uevent", state: .live, detail: "power_supply"),
                  InputSource(name: "thermal-netlink", state: .sampled, detail: "no thermal family"),
                  InputSource(name: "power-profiles", state: .unavailable, detail: "no system bus")])

    static let running = [
        RunSummary(runID: "r000042", identifier: "local.photos.export", kind: .continued, reason: "request",
                   pid: 4242, startedAt: now - 200, deadline: now + 250, progress: 0.42,
                   title: "Exporting \"Photos\" ✓", subtitle: "42 of 100 complete", statusText: nil),
        RunSummary(runID: "r000043", identifier: "local.tidy-tmp", kind: .processing, reason: "interval",
                   pid: 4243, startedAt: now - 3725, deadline: now - 5, progress: nil, title: nil, subtitle: nil,
                   statusText: "waiting for the disk\tnow", stopping: "expired(max-runtime)", paused: "external power"),
    ]

    static let pending = [
        PendingSummary(identifier: "local.backup", kind: .processing, waitingFor: "external power",
                       earliestBegin: Double(now) + 0.125, title: "Backup"),
        PendingSummary(identifier: "com.example.photos.sync", kind: .refresh,
                       waitingFor: "budget of com.example.photos (12/12, refills 00:00)"),
    ]

    static let budgets = [
        BudgetFigures(manifest: "com.example.photos", dailyLaunchCount: 12, spentLaunchCount: 12, leftLaunchCount: 0,
                      refillsAt: 1_796_079_600),
    ]

    static func status(jobCount: Int = 6) -> StatusReport {
        StatusReport(version: "0.1.0", pid: 812, startedAt: now - 200_000, uptimeSeconds: 200_000,
                     configDirectory: "/etc/agentd", stateDirectory: "/var/lib/agentd",
                     socketPath: "/run/agentd/agentd.sock", manifestCount: 2, jobCount: jobCount,
                     diagnostics: [ConfigDiagnostic(path: "jobs.d/backup.job", line: 4, severity: .error,
                                                    message: "Interval: \"soon\" is not a time span (e.g. 30s)")],
                     stateError: nil, running: running, pending: pending, pendingCount: 2, paused: false,
                     budgetLeft: 45, dailyBudget: 48, inputs: inputs,
                     configWatch: ConfigWatchStatus(watching: 2, missing: ["/etc/agentd/jobs.d"]),
                     runLimits: [LimitEnforcement(key: "TasksMax", by: "cgroup v2 pids"),
                                 LimitEnforcement(key: "MemoryMax", notEnforcedBecause: "no memory controller")],
                     budgets: budgets)
    }

    /// A status with `count` jobs at work or waiting: the size of `status` on a large agent.
    static func largeStatus(count: Int) -> StatusReport {
        var report = status(jobCount: count)
        report.running = (0..<count / 2).map(runSummary)
        report.pending = (count / 2..<count).map(pendingSummary)
        return report
    }

    private static func runSummary(_ index: Int) -> RunSummary {
        let deadline: Int64? = index % 3 == 0 ? nil : now + 600
        let progress: Double? = index % 2 == 0 ? Double(index % 100) / 100 : nil
        let title: String? = index % 5 == 0 ? "Job \(index) / export" : nil
        let status: String? = index % 7 == 0 ? "step \(index % 9) of 9" : nil
        return RunSummary(runID: "r\(100_000 + index)", identifier: "com.example.job\(index)", kind: .processing,
                          reason: "interval", pid: Int32(10_000 + index), startedAt: now - Int64(index),
                          deadline: deadline, progress: progress, title: title, subtitle: nil, statusText: status)
    }

    private static func pendingSummary(_ index: Int) -> PendingSummary {
        let kind: JobKind = index % 2 == 0 ? .refresh : .processing
        let waiting = index % 4 == 0 ? "external power" : "interval (earliest 14:05)"
        let earliest: Double? = index % 3 == 0 ? Double(now) + Double(index) / 8 : nil
        return PendingSummary(identifier: "com.example.job\(index)", kind: kind, waitingFor: waiting,
                              earliestBegin: earliest)
    }

    static let jobs = [
        JobSummary(identifier: "local.backup", kind: .processing, source: "jobs.d/backup.job", state: "registered",
                   exec: ["/usr/lib/agentd/plugins/backup", "--to=/srv/backup"], intervalSeconds: 86_400,
                   waiting: "external power"),
        JobSummary(identifier: "local.report", kind: nil, source: "jobs.d/report.job",
                   state: "error (jobs.d/report.job:5)", exec: [], intervalSeconds: nil),
    ]

    static let runs = [
        RunRecord(runID: "r000044", identifier: "local.mirror", kind: .processing, reason: "simulated",
                  startedAt: nowMs - 2_400, endedAt: nil, stopReason: nil, exitStatus: nil, signal: nil,
                  progress: 1.0, title: "Mirroring", logTail: []),
        RunRecord(runID: "r000039", identifier: "local.backup", kind: .processing, reason: "interval",
                  startedAt: nowMs - 3_723_000, endedAt: nowMs, stopReason: "failure(exit 3)", exitStatus: 3,
                  signal: nil, progress: nil, title: nil, logTail: ["rsync: connection refused", "\u{1B}[31mred\u{1B}[0m"],
                  notes: RunNotes(statusText: "copying /home (2 of 5)", result: "/srv/backup/partial",
                                  truncatedLineCount: 2, invalidDirectiveCount: 1,
                                  checkpointGiven: "dir-1", checkpointLeft: "dir-2")),
        RunRecord(runID: "r000031", identifier: "local.backup", kind: .processing, reason: "catch-up",
                  startedAt: nowMs - 90_000_000, endedAt: nowMs - 89_800_000, stopReason: "crashed(signal 11)",
                  exitStatus: nil, signal: 11, progress: nil, title: nil, logTail: []),
    ]

    static let metrics = MetricsSnapshot(
        version: "0.1.0", startedAt: now - 200_000, jobCount: 6, configErrorCount: 1, paused: false,
        stateWritable: true, running: [KindCount(kind: .processing, runCount: 2)], pending: [],
        budgets: budgets,
        runsEnded: [RunsEnded(identifier: "local.backup", stopReasonLabel: "failure", runCount: 3)],
        durations: [DurationHistogram(kind: .processing,
                                      buckets: [DurationBucket(upperBoundSeconds: 0.5, runCount: 1),
                                                DurationBucket(upperBoundSeconds: 60, runCount: 4),
                                                DurationBucket(upperBoundSeconds: 3600, runCount: 5)],
                                      runCount: 5, sumSeconds: 4123.875)],
        jobs: [JobFigures(identifier: "local.backup", kind: .processing, lastSuccessAt: now - 86_400,
                          freshDayShare: 0.8571428571428571),
               JobFigures(identifier: "local.new", kind: .refresh, lastSuccessAt: nil, freshDayShare: 0)],
        conditions: ConditionFigures(inputs))

    /// One request of every verb.
    static let everyVerb: [ControlRequest] = [
        .status, .list(), .history(HistoryQuery()), .cancel(target: "r000042"), .simulateLaunch(target: "local.a"),
        .simulateExpire(target: "local.a"), .pending(target: nil), .explain(target: "local.a"), .trigger(target: "local.a"),
        .submit(target: "local.e", SubmitRequest()), .enable(target: "local.a"), .disable(target: "local.a"), .pause, .resume,
        .runIfStale(target: "local.a", maxAge: .seconds(0)), .lowpower(.auto), .resources, .metrics(),
        .subscribe(EventFilter()), .request(target: "local.a", RunRequestOptions()), .cancelRequest(.all),
        .logs(LogsQuery(target: "local.a")), .run(target: "local.a"),
    ]

    static let requests: [ControlRequest] = [
        ControlRequest.status,
        .history(HistoryQuery(target: "local.backup", limit: 50, cursor: RunCursor(runID: RunID(31), startedAt: 1_796_111_000_000),
                              omitLogTails: true)),
        .submit(target: "local.photos.export",
                SubmitRequest(title: "Export \"all\"", subtitle: "to /mnt/usb", strategy: .fail,
                              arguments: ["--album=Ünïcødé", "a\\b"], notify: false)),
        .runIfStale(target: "local.backup", maxAge: .seconds(86_400)),
        .subscribe(EventFilter(identifiers: ["local.backup"], kinds: ["run-ended"])),
        .subscribe(EventFilter(identifiers: ["local.photos", "local.photos.*"], kinds: ["run-output"],
                               jobs: ["local.photos"])),
    ]

    static var responses: [ControlResponseFields] {
        let answers: [ControlResponse] = [
            .success(.status(status())),
            .success(.jobs(jobs)),
            .success(.runs(runs, nextCursor: RunCursor(runID: RunID(30), startedAt: 1_796_111_000_000))),
            .success(.logs(runs, nextCursor: nil, sequence: 12)),
            .success(.pending(pending)),
            .success(.explanation(timeline: [TimelineRecord(time: Double(now) + 0.25, event: "launch")], pending: pending)),
            .success(.resources(gpus: [GPUSummary(name: "card0", detail: "i915")], inputs: inputs)),
            .success(.metrics(metrics)),
            .success(.subscribed(sequence: 41)),
            .success(.done(message: "submitted local.e.1 as request 7: started run r000045", runID: "r000045", requestID: 7)),
            .failure(ControlError(code: .notPermitted, message: "no manifest permits x.y")),
            .success(.done(message: "paused")),
        ]
        return answers.map(ControlResponseFields.init)
    }

    static var events: [AgentEvent] {
        var started = AgentEvent(sequence: 1, time: nowMs, type: .runStarted, identifier: "local.backup", runID: "r000045")
        started.kind = .processing
        started.reason = "interval"
        started.requestID = 7
        var progress = AgentEvent(sequence: 2, time: nowMs + 1, type: .runProgress, identifier: "local.backup",
                                  runID: "r000045")
        progress.progress = 0.333
        progress.title = "Backing up"
        progress.subtitle = "/home"
        progress.status = "3 of 9"
        var ended = AgentEvent(sequence: 3, time: nowMs + 2, type: .runEnded, identifier: "local.backup", runID: "r000045")
        ended.stopReason = "failure(exit 3)"
        var inputsChanged = AgentEvent(sequence: 4, time: nowMs + 3, type: .conditionsChanged)
        inputsChanged.inputs = inputs
        var queued = AgentEvent(sequence: 5, time: nowMs + 4, type: .requestQueued, identifier: "local.export.1")
        queued.position = 3
        queued.message = "waiting behind 2"
        return [started, progress, ended, inputsChanged, queued]
    }

    static func identifier(_ text: String) -> Identifier {
        Identifier(rawValue: text) ?? Identifier(rawValue: "local.fallback")!
    }

    static var persisted: PersistedSchedule {
        let a = identifier("com.example.feed"), b = identifier("com.example.flaky"), c = identifier("local.backup")
        return PersistedSchedule(
            lastRunStart: [a: SchedulerTime(seconds: 1_796_045_400.125), b: SchedulerTime(seconds: 30)],
            lastSuccess: [a: SchedulerTime(seconds: 1_796_045_401.5)],
            consecutiveFailures: [b: 3],
            disabled: [c],
            paused: true, budgetDay: "2026-11-30", budgetSpent: 12,
            budgetLedgers: ["com.example": BudgetLedgerEntry(day: "2026-11-30", spent: 5)],
            pendingTriggers: [a, c],
            submissions: [Submission(identifier: identifier("com.example.export.1"), jobIdentifier: identifier("com.example.export"),
                                     title: "Export", subtitle: "/srv", arguments: ["--fast", "ü"], strategy: .fail,
                                     requestID: 9)],
            lastTriggerLaunch: [a: SchedulerTime(seconds: 1_796_045_000)],
            pendingRetries: [b: SchedulerTime(seconds: 1_796_045_700.25)],
            pendingChained: [c])
    }

    static let identifierSchedules = [
        IdentifierSchedule(),
        IdentifierSchedule(lastRunStart: SchedulerTime(seconds: 1_796_045_400.125), lastSuccess: SchedulerTime(seconds: 0.1),
                           consecutiveFailures: 2, disabled: true, pendingTrigger: true,
                           pendingRetry: SchedulerTime(seconds: 1e9), pendingChained: true,
                           lastTriggerLaunch: SchedulerTime(seconds: -1.5)),
    ]
}
