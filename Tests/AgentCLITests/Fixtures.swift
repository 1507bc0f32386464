// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
@testable import AgentCLI

/// Fixed values for output tests: an agent caught in the middle of its work, seen on
/// Monday 2026-11-30 at 14:30:00 local time (UTC+01:00), whatever the machine's clock and zone.
enum Fixture {
    /// 2026-11-30 13:30:00 UTC.
    static let now: Int64 = 1_796_045_400
    static let zone = DisplayClock.Zone.fixedOffset(seconds: 3600)
    static let clock = DisplayClock.fixed(milliseconds: now * 1000, zone: zone)

    /// A context as agentctl has it with `COLUMNS=80` on a pipe.
    static func context(width: Int? = 80, style: Style = .plain) -> CommandContext {
        CommandContext(socketPath: "/run/agentd/agentd.sock", terminalWidth: width, style: style, clock: clock)
    }

    static let diagnostics = [
        ConfigDiagnostic(path: "jobs.d/backup.job", line: 4, severity: .error,
                         message: "Interval: \"soon\" is not a time span (e.g. 30s, 15min, 1h, 1d)"),
        ConfigDiagnostic(path: "jobs.d/photos.job", line: 7, severity: .warning,
                         message: "RequiresNetwork=: unknown key, ignored"),
    ]

    static let running = [
        RunSummary(runID: "r000042", identifier: "local.photos.export", kind: .continued, reason: "request",
                   pid: 4242, startedAt: now - 200, deadline: now + 250, progress: 0.42,
                   title: "Exporting Photos", subtitle: "42 of 100 complete", statusText: nil),
        RunSummary(runID: "r000043", identifier: "local.tidy-tmp", kind: .processing, reason: "interval",
                   pid: 4243, startedAt: now - 3725, deadline: now - 5, progress: nil,
                   title: nil, subtitle: nil, statusText: "waiting for the disk", stopping: "expired(max-runtime)"),
        RunSummary(runID: "r000044", identifier: "local.mirror", kind: .processing, reason: "simulated",
                   pid: 4244, startedAt: now - 2, deadline: nil, progress: 1.0,
                   title: "Mirroring a rather long list of repositories to the backup disk in the basement",
                   subtitle: nil, statusText: nil, stopping: "cancelled"),
    ]

    static let pending = [
        PendingSummary(identifier: "local.backup", kind: .processing, waitingFor: "external power"),
        PendingSummary(identifier: "local.refresh-feeds", kind: .refresh, waitingFor: "interval (earliest 14:05)"),
    ]

    static func status(running: [RunSummary] = running, pending: [PendingSummary] = pending,
                       diagnostics: [ConfigDiagnostic] = diagnostics, stateError: String? = nil,
                       inputs: MachineInputs? = inputsOnAC, manifestCount: Int = 2, jobCount: Int = 6,
                       configWatch: ConfigWatchStatus? = ConfigWatchStatus(watching: 2, missing: ["/etc/agentd/jobs.d"])) -> StatusReport {
        StatusReport(version: "0.1.0", pid: 812, startedAt: now - 200_000, uptimeSeconds: 200_000,
                     configDirectory: "/etc/agentd", stateDirectory: "/var/lib/agentd",
                     socketPath: "/run/agentd/agentd.sock", manifestCount: manifestCount, jobCount: jobCount,
                     diagnostics: diagnostics, stateError: stateError, running: running, pending: pending,
                     inputs: inputs, configWatch: configWatch, runLimits: runLimits, budgets: budgets)
    }

    /// Two manifests' budgets: the photos package has spent its own 12 today, local has 45 of 48
    /// left; both refill at the coming local midnight (23:00 UTC).
    static let budgets = [
        BudgetFigures(manifest: "com.example.photos", dailyLaunchCount: 12, spentLaunchCount: 12, leftLaunchCount: 0,
                      refillsAt: 1_796_079_600),
        BudgetFigures(manifest: "local", dailyLaunchCount: 48, spentLaunchCount: 3, leftLaunchCount: 45,
                      refillsAt: 1_796_079_600),
    ]

    /// TasksMax= held by the delegated pids controller; no memory controller delegated.
    static let runLimits = [
        LimitEnforcement(key: "TasksMax", by: "cgroup v2 pids"),
        LimitEnforcement(key: "MemoryMax", notEnforcedBecause: noMemory),
        LimitEnforcement(key: "MemoryHigh", notEnforcedBecause: noMemory),
    ]
    static let noMemory = "no memory controller delegated to /sys/fs/cgroup/system.slice/agentd.service, which has cpu pids"

    static let liveSources = [
        InputSource(name: "uevent", state: .live, detail: "power_supply"),
        InputSource(name: "thermal-netlink", state: .live),
        InputSource(name: "rtnetlink", state: .live),
        InputSource(name: "psi", state: .live),
        InputSource(name: "platform_profile", state: .live),
        InputSource(name: "power-profiles", state: .live),
        InputSource(name: "networkmanager", state: .live, detail: "watching NetworkManager"),
        InputSource(name: "logind", state: .live, detail: "watching systemd-logind; InhibitDelayMaxUSec 5s"),
    ]

    /// A laptop on its charger, cool, online, every source live.
    static let inputsOnAC = MachineInputs(
        power: "ac", batteryPercent: 80, batteryStatus: "charging", lowPower: false,
        lowPowerSource: "auto (platform_profile)", thermal: "nominal", hottestZone: "x86_pkg_temp",
        hottestCelsius: 48, marginCelsius: 42, marginTrip: "passive", network: true,
        metered: "no", meteredSource: "NetworkManager: no", memoryPressure: false, cpuBusy: false,
        sources: liveSources, sleep: "awake", inhibitors: ["sleep delay", "idle block (Exporting Photos)"],
        presence: "away since 02:41 (1 session idle or locked)", idleSource: "logind sessions and PSI",
        wakeAlarm: "armed for Thu 03:00 (local.backup)", wakeAlarmAt: 1_796_266_800,
        notifications: "on: last shown for run r000003")

    /// On battery at 15 % and falling, low-power mode forced on, offline, memory pressure.
    static let inputsOnBattery = MachineInputs(
        power: "battery", batteryPercent: 15, batteryStatus: "discharging", lowPower: true,
        lowPowerSource: "on (agentctl)", thermal: "nominal", hottestZone: nil, hottestCelsius: nil,
        marginCelsius: nil, marginTrip: nil, network: false, metered: "yes",
        meteredSource: "NetworkManager: guess-yes", memoryPressure: true, cpuBusy: true, sources: liveSources)

    /// A desktop without a battery, warm (thermal fair), with the thermal events missing (so the
    /// zones are sampled) and no system bus for power-profiles-daemon.
    static let inputsThermalFair = MachineInputs(
        power: "ac", batteryPercent: nil, batteryStatus: nil, lowPower: false, lowPowerSource: "auto",
        thermal: "fair", hottestZone: "x86_pkg_temp", hottestCelsius: 82, marginCelsius: 8, marginTrip: "passive",
        network: true, metered: "no", meteredSource: "no system bus", memoryPressure: false, cpuBusy: false,
        sources: [InputSource(name: "uevent", state: .live),
                  InputSource(name: "thermal-netlink", state: .sampled, detail: "no thermal family"),
                  InputSource(name: "rtnetlink", state: .live),
                  InputSource(name: "psi", state: .live),
                  InputSource(name: "power-profiles", state: .unavailable, detail: "no system bus"),
                  InputSource(name: "networkmanager", state: .unavailable, detail: "no system bus")])

    /// A run frozen while its condition is lost (`OnConditionLost=pause`), and one still running.
    static let pausedRunning = [
        RunSummary(runID: "r000050", identifier: "local.backup", kind: .processing, reason: "interval",
                   pid: 4250, startedAt: now - 600, deadline: now + 1200, progress: 0.6,
                   title: "Backing up", subtitle: nil, statusText: nil, paused: "external power"),
        RunSummary(runID: "r000051", identifier: "local.photos.export", kind: .continued, reason: "request",
                   pid: 4251, startedAt: now - 30, deadline: nil, progress: 0.1, title: "Exporting Photos"),
    ]

    /// Every reason the conditions give a waiting job, as the agent words them.
    static let conditionPending = [
        PendingSummary(identifier: "local.backup.offsite", kind: .processing, waitingFor: "external power"),
        PendingSummary(identifier: "local.index", kind: .processing, waitingFor: "thermal serious"),
        PendingSummary(identifier: "local.refresh-feeds", kind: .refresh, waitingFor: "battery low (15%)"),
        PendingSummary(identifier: "local.thumbnails", kind: .processing, waitingFor: "memory pressure"),
        PendingSummary(identifier: "local.mirror", kind: .processing, waitingFor: "network"),
        PendingSummary(identifier: "local.reindex", kind: .processing, waitingFor: "idle CPU"),
        PendingSummary(identifier: "local.vacuum", kind: .processing, waitingFor: "low-power mode"),
        PendingSummary(identifier: "local.render", kind: .processing, waitingFor: "resource gpu"),
        PendingSummary(identifier: "com.example.photos.sync", kind: .refresh,
                       waitingFor: "budget of com.example.photos (12/12, refills 00:00)"),
    ]

    static let gpus = [GPUSummary(name: "card0", detail: "i915"), GPUSummary(name: "nvidia0", detail: "/dev/nvidia0")]

    static let jobs = [
        JobSummary(identifier: "local.backup", kind: .processing, source: "jobs.d/backup.job", state: "registered",
                   exec: ["/usr/lib/agentd/plugins/backup"], intervalSeconds: 86_400),
        JobSummary(identifier: "local.photos.export", kind: .continued, source: "jobs.d/photos.job",
                   state: "registered", exec: ["/usr/lib/agentd/plugins/example-export", "--fast"], intervalSeconds: nil),
        JobSummary(identifier: "local.tidy-tmp", kind: .processing, source: "jobs.d/tidy-tmp", state: "registered",
                   exec: ["/etc/agentd/jobs.d/tidy-tmp"], intervalSeconds: 3600),
        JobSummary(identifier: "local.tidy-tmp", kind: .processing, source: "jobs.d/tidy-tmp-copy.job",
                   state: "duplicate of jobs.d/tidy-tmp", exec: ["/bin/true"], intervalSeconds: 3600),
        JobSummary(identifier: "com.example.sync", kind: .refresh, source: "jobs.d/sync.job",
                   state: "not-permitted: no manifest permits com.example.sync; add it (or com.example.*) to PermittedIdentifiers= of a manifest in manifests.d/",
                   exec: ["/opt/sync"], intervalSeconds: 900),
        // A job file with errors and no good version: listed, not vanished.
        JobSummary(identifier: "local.report", kind: nil, source: "jobs.d/report.job",
                   state: "error (jobs.d/report.job:5)", exec: ["/usr/lib/agentd/plugins/report"],
                   intervalSeconds: nil),
    ]

    /// Milliseconds for history.
    static let nowMs = now * 1000

    static let runs = [
        RunRecord(runID: "r000044", identifier: "local.mirror", kind: .processing, reason: "simulated",
                  startedAt: nowMs - 2_400, endedAt: nil, stopReason: nil, exitStatus: nil, signal: nil,
                  progress: 1.0, title: "Mirroring", logTail: []),
        {
            // As a reader who may not see its details gets it.
            var run = RunRecord(runID: "r000041", identifier: "local.tidy-tmp", kind: .processing, reason: "interval",
                                startedAt: nowMs - 42_000, endedAt: nowMs - 41_600, stopReason: "success", exitStatus: 0,
                                signal: nil, progress: nil, title: nil, logTail: [])
            run.detailsHidden = true
            return run
        }(),
        RunRecord(runID: "r000040", identifier: "local.photos.export", kind: .continued, reason: "request",
                  startedAt: nowMs - 2 * 3_600_000 - 300_000, endedAt: nowMs - 2 * 3_600_000 - 100_000,
                  stopReason: "expired(no-progress)", exitStatus: nil, signal: 15, progress: 0.1, title: "Exporting Photos",
                  logTail: ["exporting IMG_0001.HEIC", "exporting IMG_0002.HEIC"]),
        RunRecord(runID: "r000039", identifier: "local.backup", kind: .processing, reason: "interval",
                  // Today 09:05 local.
                  startedAt: (now - 5 * 3600 - 25 * 60) * 1000, endedAt: (now - 5 * 3600 - 25 * 60) * 1000 + 3_723_000,
                  stopReason: "failure(exit 3)", exitStatus: 3, signal: nil, progress: nil, title: nil,
                  logTail: ["rsync: connection refused"],
                  notes: RunNotes(statusText: "copying /home (2 of 5)", result: "/srv/backup/partial",
                                  truncatedLineCount: 2, invalidDirectiveCount: 1,
                                  checkpointGiven: "dir-1", checkpointLeft: "dir-2")),
        RunRecord(runID: "r000031", identifier: "local.backup", kind: .processing, reason: "catch-up",
                  // Friday 2026-11-27 23:59 local.
                  startedAt: (now - 2 * 86_400 - 14 * 3600 - 31 * 60) * 1000, endedAt: (now - 2 * 86_400 - 14 * 3600 - 31 * 60) * 1000 + 200_000,
                  stopReason: "crashed(signal 11)", exitStatus: nil, signal: 11, progress: nil, title: nil, logTail: []),
        RunRecord(runID: "r000002", identifier: "local.backup", kind: .processing, reason: "simulated",
                  // 2026-11-16 10:00 local, two weeks ago.
                  startedAt: (now - 14 * 86_400 - 4 * 3600 - 30 * 60) * 1000, endedAt: (now - 14 * 86_400 - 4 * 3600 - 30 * 60) * 1000 + 500,
                  stopReason: "cancelled", exitStatus: nil, signal: 15, progress: nil, title: nil, logTail: []),
    ]

    static let checkReport = CheckReport(directory: "/etc/agentd", manifests: 2, jobs: 6, diagnostics: diagnostics)
}
