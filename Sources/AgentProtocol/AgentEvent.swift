// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// One line of the event stream a `subscribe` request turns its connection into (DESIGN §9).
///
/// Only the fields of its `type` are set; the others are left out of the JSON. `sequence` grows
/// by one for every event the agent publishes (agent-wide, whoever subscribed), so a gap says a
/// filter left events out, never that the stream lost one: a subscriber that falls behind gets one
/// `overflow` event and is disconnected instead.
public struct AgentEvent: Codable, Sendable, Hashable {
    public var sequence: UInt64
    /// When it happened, in milliseconds since the epoch; in JSON an RFC 3339 instant in UTC
    /// with milliseconds (`2026-12-01T08:00:00.123Z`, docs/json.md).
    @Instant<EpochMilliseconds> public var time: Int64
    /// What happened; a newer agentd's kind this build does not know is kept as its text.
    public var type: Reported<EventKind>
    public var identifier: String?
    /// `run-started` of a submission under a dynamic identifier (`com.example.export.7f3a`):
    /// the job it runs (`com.example.export`); absent when the identifier is the job's own.
    public var job: String?
    public var runID: String?
    /// The job's kind (refresh, processing, continued).
    public var kind: JobKind?
    /// Why the run started (scheduled, submitted, ...); a newer agentd's reason this build does
    /// not know is kept as its text.
    public var reason: Reported<RunReason>?
    /// `run-ended`: the stop reason (DESIGN §7), e.g. `success`, `failure(exit 1)`; a newer
    /// agentd's reason this build does not know is kept as its text.
    public var stopReason: Reported<StopReason>?
    /// The submission a run or request event concerns (`ControlAnswer.done`'s `requestID`, of `submit`).
    public var requestID: Int64?
    /// `run-progress`: the fraction done, 0 to 1.
    public var progress: Double?
    /// `run-progress` of a `PROGRESS=N/M` line: N and M (absent for `N%`).
    public var completedUnitCount: Int64?
    public var totalUnitCount: Int64?
    public var title: String?
    public var subtitle: String?
    /// `run-status`: the `STATUS=` text; `run-ended`: the run's last one, if it said any.
    public var status: String?
    /// `run-ended`: the run's last `RESULT=`, if it said any.
    public var result: String?
    /// `request-queued`: the place in the job's queue (1 is next).
    public var position: Int?
    /// `request-added`/`request-replaced`: the pending request's own earliest begin and
    /// requirements, as `pending --json` shows them.
    public var request: RunRequestOptions?
    /// A sentence for people: why a request was refused, a config error, why a stream ended.
    public var message: String?
    /// `conditions-changed`: the inputs as `agentctl resources` shows them.
    public var inputs: MachineInputs?
    /// `run-output`: the run's output lines read in one go, oldest first (at most 64 lines and
    /// 16 KiB per event: the newest are kept).
    public var lines: [String]?
    /// `run-output`: lines read in that go but left out of `lines` to keep the event bounded.
    public var droppedLineCount: Int?

    public init(sequence: UInt64, time: Int64, type: EventKind, identifier: String? = nil,
                runID: String? = nil) {
        self.sequence = sequence
        self.time = time
        self.type = .known(type)
        self.identifier = identifier
        self.runID = runID
    }

    /// The kind, when this agentctl knows it.
    public var eventKind: EventKind? { type.known }
}

/// What an event says happened.
public enum EventKind: String, Codable, Sendable, CaseIterable {
    case runStarted = "run-started"
    case runProgress = "run-progress"
    case runTitle = "run-title"
    case runSubtitle = "run-subtitle"
    case runStatus = "run-status"
    case runEnded = "run-ended"
    /// A run's output lines (stderr, and stdout lines that are not directives), merged per read.
    /// Sent only to subscribers whose filter names this kind: a chatty plugin costs nobody else.
    case runOutput = "run-output"
    case requestQueued = "request-queued"
    case requestRefused = "request-refused"
    /// A refresh or processing identifier's run-time request is pending (`request`).
    case requestAdded = "request-added"
    /// A new request replaced the identifier's pending one (one pending per identifier).
    case requestReplaced = "request-replaced"
    /// `cancel-request` withdrew the identifier's pending request or queued submissions.
    case requestWithdrawn = "request-withdrawn"
    case jobRegistered = "job-registered"
    case jobUpdated = "job-updated"
    case jobUnregistered = "job-unregistered"
    case jobError = "job-error"
    case conditionsChanged = "conditions-changed"
    case agentStopping = "agent-stopping"
    /// logind's PrepareForSleep(true): the machine is about to sleep (runs are frozen or
    /// expired `expired(sleep)` next).
    case sleep
    /// logind's PrepareForSleep(false): the machine resumed.
    case resume
    /// The last event of a subscriber that fell behind; the agent closes the connection after it.
    case overflow

    /// Kinds a subscriber gets only by naming them in its filter's `kinds`.
    public var isOptIn: Bool { self == .runOutput }

    /// Kinds that concern no identifier (a config error names a file): an identifier filter lets
    /// them through.
    public var isAgentWide: Bool {
        self == .conditionsChanged || self == .agentStopping || self == .overflow || self == .jobError
            || self == .sleep || self == .resume
    }
}
