// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// What `agentctl status` shows: the agent, its config, and its work.
public struct StatusReport: Codable, Sendable {
    public var version: String
    public var pid: Int32
    /// When the agent started (RFC 3339 in JSON).
    @Instant<EpochSeconds> public var startedAt: Int64
    public var uptimeSeconds: Int64
    public var configDirectory: String
    public var stateDirectory: String
    public var socketPath: String
    public var manifestCount: Int
    public var jobCount: Int
    /// Every current config error and warning, `path:line: message`.
    public var diagnostics: [ConfigDiagnostic]
    /// Problem with the state directory or database, if any (the agent keeps running).
    public var stateError: String?
    public var running: [RunSummary]
    public var pending: [PendingSummary]
    /// How many requests wait in all (`pending` lists at most the first 100).
    public var pendingCount: Int?
    /// `pause` in force: discretionary work waits.
    public var paused: Bool?
    /// Discretionary launches left today summed over every manifest, and agentd.conf's
    /// `DailyBudget=` (the default of each manifest).
    public var budgetLeft: Int?
    public var dailyBudget: Int?
    /// Each manifest's budget today, by manifest name (nil from older agents).
    public var budgets: [BudgetFigures]?
    /// Power, thermal, network and pressure as the agent sees them (nil from older agents).
    public var inputs: MachineInputs?
    /// What the config watcher watches (nil from older agents).
    public var configWatch: ConfigWatchStatus?
    /// Whether this machine enforces each per-run limit (TasksMax=, MemoryMax=, MemoryHigh=), by
    /// what, or why not (nil from older agents).
    public var runLimits: [LimitEnforcement]?
    /// Why `MetricsFile=` is not being written (a file there that is not the agent's, a missing
    /// directory); absent while it is, or when there is none.
    public var metricsFileProblem: String?

    public init(version: String, pid: Int32, startedAt: Int64, uptimeSeconds: Int64,
                configDirectory: String, stateDirectory: String, socketPath: String,
                manifestCount: Int, jobCount: Int, diagnostics: [ConfigDiagnostic],
                stateError: String?, running: [RunSummary], pending: [PendingSummary],
                pendingCount: Int? = nil, paused: Bool? = nil, budgetLeft: Int? = nil, dailyBudget: Int? = nil,
                inputs: MachineInputs? = nil, configWatch: ConfigWatchStatus? = nil, runLimits: [LimitEnforcement]? = nil,
                budgets: [BudgetFigures]? = nil) {
        self.budgets = budgets
        self.inputs = inputs
        self.configWatch = configWatch
        self.runLimits = runLimits
        self.version = version
        self.pid = pid
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.configDirectory = configDirectory
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.manifestCount = manifestCount
        self.jobCount = jobCount
        self.diagnostics = diagnostics
        self.stateError = stateError
        self.running = running
        self.pending = pending
        self.pendingCount = pendingCount ?? pending.count
        self.pending = pending
        self.paused = paused
        self.budgetLeft = budgetLeft
        self.dailyBudget = dailyBudget
    }
}

/// The config watcher's health in `status`: an agent that watches nothing hears no change.
public struct ConfigWatchStatus: Codable, Sendable, Hashable {
    /// Config directories watched: the config directory, `manifests.d`, `jobs.d` (at most 3).
    public var watching: Int
    /// Absolute paths of the config directories that are missing; what was last read from them
    /// stays in force until they are back.
    public var missing: [String]

    public init(watching: Int, missing: [String]) {
        self.watching = watching
        self.missing = missing
    }
}

/// A live run as shown in `status`.
public struct RunSummary: Codable, Sendable, Hashable {
    public var runID: String
    public var identifier: String
    public var kind: JobKind
    public var reason: Reported<RunReason>
    public var pid: Int32
    /// Unix seconds (RFC 3339 in JSON).
    @Instant<EpochSeconds> public var startedAt: Int64
    /// Unix seconds of the SIGTERM for MaxRuntime, if any (RFC 3339 in JSON).
    @OptionalInstant<EpochSeconds> public var deadline: Int64?
    /// 0...1
    public var progress: Double?
    /// `PROGRESS=N/M`: N and M (absent for `N%`).
    public var completedUnitCount: Int64?
    public var totalUnitCount: Int64?
    public var title: String?
    public var subtitle: String?
    public var statusText: String?
    /// `expired(max-runtime)`, `cancelled`… once the agent is stopping it.
    public var stopping: Reported<RunStop>?
    /// Why it is frozen (`OnConditionLost=pause`): `external power`, `thermal serious`…
    public var paused: String?

    public init(runID: String, identifier: String, kind: JobKind, reason: Reported<RunReason>, pid: Int32,
                startedAt: Int64, deadline: Int64?, progress: Double? = nil, title: String? = nil,
                subtitle: String? = nil, statusText: String? = nil, stopping: Reported<RunStop>? = nil,
                paused: String? = nil) {
        self.paused = paused
        self.runID = runID
        self.identifier = identifier
        self.kind = kind
        self.reason = reason
        self.pid = pid
        self.startedAt = startedAt
        self.deadline = deadline
        self.progress = progress
        self.title = title
        self.subtitle = subtitle
        self.statusText = statusText
        self.stopping = stopping
    }
}

/// One finished (or live) run from history.
public struct RunRecord: Codable, Sendable, Hashable {
    public var runID: String
    public var identifier: String
    public var kind: JobKind
    /// Why it started; a newer agentd's reason this build does not know is kept as its text.
    public var reason: Reported<RunReason>
    /// Unix milliseconds (RFC 3339 in JSON).
    @Instant<EpochMilliseconds> public var startedAt: Int64
    @OptionalInstant<EpochMilliseconds> public var endedAt: Int64?
    /// DESIGN §7 text: `success`, `failure(exit 3)`, `expired(max-runtime)`…; nil while live.
    /// A reason this build does not know (a newer agentd's) is kept as its text and shown as it
    /// is; this build derives nothing from it (the fields a newer agentd sent with it are kept).
    public var stopReason: Reported<StopReason>? {
        didSet { deriveStopFields() }
    }
    // The stop reason taken apart for scripts (docs/json.md), always derived from `stopReason`
    // so the two never disagree; `exitStatus` and `signal` carry the numbers.
    /// `success`, `failure`, `expired`, `cancelled`, `crashed`, `spawn-failed`, `agent-restart`.
    public private(set) var stopKind: String?
    /// What expired the run: `max-runtime`, `no-progress`, `power`, `limit`…
    public private(set) var expiredBy: String?
    /// Why the plugin could not be started.
    public private(set) var spawnError: String?
    public var exitStatus: Int32?
    public var signal: Int32?
    public var progress: Double?
    /// `PROGRESS=N/M`: the last N and M (absent for `N%` and for runs an older agentd recorded).
    public var completedUnitCount: Int64?
    public var totalUnitCount: Int64?
    public var title: String?
    public var logTail: [String]
    // What the run said (DESIGN §10), recorded at its end: absent for a live run and for runs an
    // older agentd recorded.
    /// The last `STATUS=` text.
    public var statusText: String?
    /// The last accepted `RESULT=`.
    public var result: String?
    /// Output lines cut at 4096 bytes.
    public var truncatedLineCount: Int?
    /// Directives counted and ignored.
    public var invalidDirectiveCount: Int?
    /// The checkpoint it started with (`AGENTD_CHECKPOINT`), and the one in force when it ended.
    public var checkpointGiven: String?
    public var checkpointLeft: String?
    /// True when the reader may not see this job's details, which are left out (absent
    /// otherwise): "said nothing" and "not shown to you" are told apart.
    public var detailsHidden: Bool?

    public init(runID: String, identifier: String, kind: JobKind, reason: Reported<RunReason>, startedAt: Int64,
                endedAt: Int64?, stopReason: Reported<StopReason>?, exitStatus: Int32?, signal: Int32?,
                progress: Double?, title: String?, logTail: [String], notes: RunNotes = RunNotes()) {
        self.runID = runID
        self.identifier = identifier
        self.kind = kind
        self.reason = reason
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.stopReason = stopReason
        self.exitStatus = exitStatus
        self.signal = signal
        self.progress = progress
        self.title = title
        self.logTail = logTail
        self.notes = notes
        deriveStopFields()
    }

    /// The fields of what the run said, together.
    public var notes: RunNotes {
        get {
            RunNotes(statusText: statusText, result: result, truncatedLineCount: truncatedLineCount,
                     invalidDirectiveCount: invalidDirectiveCount, checkpointGiven: checkpointGiven,
                     checkpointLeft: checkpointLeft)
        }
        set {
            statusText = newValue.statusText
            result = newValue.result
            truncatedLineCount = newValue.truncatedLineCount
            invalidDirectiveCount = newValue.invalidDirectiveCount
            checkpointGiven = newValue.checkpointGiven
            checkpointLeft = newValue.checkpointLeft
        }
    }

    private mutating func deriveStopFields() {
        let parsed = stopReason?.known
        stopKind = parsed.map(\.kind)
        switch parsed {
        case .expired(let reason)?: expiredBy = reason.rawValue
        default: expiredBy = nil
        }
        switch parsed {
        case .spawnFailed(let why)?: spawnError = why
        default: spawnError = nil
        }
    }

    /// The lines of a stored log tail (one string, lines joined by newlines); a run that
    /// printed nothing has none, not one empty line.
    public static func logLines(_ stored: String?) -> [String] {
        guard let stored, !stored.isEmpty else { return [] }
        return stored.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}

extension StopReason {
    /// The word before the parenthesis: `failure` for `failure(exit 3)`.
    public var kind: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .expired: "expired"
        case .cancelled: "cancelled"
        case .crashed: "crashed"
        case .spawnFailed: "spawn-failed"
        case .agentRestart: "agent-restart"
        case .skipped: "skipped"
        }
    }
}

/// A waiting request as shown in `status` and `pending`.
public struct PendingSummary: Codable, Sendable, Hashable {
    /// Whether only its own live run holds it (the code, else an older agent's text).
    public var isHeldByItsRun: Bool {
        reason.map { $0.known == .running } ?? (waitingFor == "running")
    }

    public var identifier: String
    public var kind: JobKind
    /// Why it waits: `interval`, `budget`, `paused`, `max concurrent`, `denied`, `restricted`…
    public var waitingFor: String
    /// Unix seconds when it may start at the earliest (interval end, budget refill…), if known
    /// (RFC 3339 in JSON).
    @OptionalInstant<EpochFractionalSeconds> public var earliestBegin: Double?
    /// Continued submissions: the title and subtitle a person gave.
    public var title: String?
    public var subtitle: String?
    /// A pending `request` (`agentctl request`): its own earliest begin and requirements.
    /// Absent when the job waits for nothing anyone requested.
    public var request: RunRequestOptions?
    /// Why it waits as a code (`interval`, `schedule`, `trigger-spacing`, `budget`, `condition`…)
    /// and the instant that reason names, if any (nil from older agents).
    public var reason: Reported<WaitCode>?
    @OptionalInstant<EpochFractionalSeconds> public var until: Double?

    public init(identifier: String, kind: JobKind, waitingFor: String, earliestBegin: Double? = nil,
                title: String? = nil, subtitle: String? = nil, request: RunRequestOptions? = nil,
                reason: Reported<WaitCode>? = nil, until: Double? = nil) {
        self.subtitle = subtitle
        self.request = request
        self.reason = reason
        self.until = until
        self.identifier = identifier
        self.kind = kind
        self.waitingFor = waitingFor
        self.earliestBegin = earliestBegin
        self.title = title
    }
}

/// One job as shown by `agentctl list`.
public struct JobSummary: Codable, Sendable, Hashable {
    public var identifier: String
    /// Nil for a job file too broken to say (`-` in JSON).
    @DashWhenAbsent public var kind: JobKind?
    /// The file it came from, relative to the config directory.
    public var source: String
    /// `registered` (``registered``), `not-permitted: …`, `duplicate of …` or `error (FILE:LINE)`.
    public var state: String
    public var exec: [String]
    public var intervalSeconds: Int64?
    /// What it waits for now (`interval (earliest 14:05)`, `budget (refills 00:00)`, `running`…);
    /// nil when it is not due.
    public var waiting: String?
    /// `waiting` as a code and the instant it names (the next slot, the interval's end…), as in
    /// `pending --json` (nil from older agents, and when it is not due).
    public var waitingReason: Reported<WaitCode>?
    @OptionalInstant<EpochFractionalSeconds> public var waitingUntil: Double?

    /// The state of a job the agent schedules; every other state says why it does not.
    public static let registered = "registered"

    /// Whether the agent schedules it (`state` is ``registered``).
    public var isRegistered: Bool { state == Self.registered }

    public init(identifier: String, kind: JobKind?, source: String, state: String, exec: [String],
                intervalSeconds: Int64?, waiting: String? = nil, waitingReason: Reported<WaitCode>? = nil,
                waitingUntil: Double? = nil) {
        self.waitingReason = waitingReason
        self.waitingUntil = waitingUntil
        self.waiting = waiting
        self.identifier = identifier
        self.kind = kind
        self.source = source
        self.state = state
        self.exec = exec
        self.intervalSeconds = intervalSeconds
    }
}
