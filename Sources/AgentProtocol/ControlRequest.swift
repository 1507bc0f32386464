// SPDX-License-Identifier: Apache-2.0
/// One request on the control socket: a JSON object on one line (DESIGN §9).
///
/// `command` selects the verb; the other fields are its arguments. Unknown fields are ignored so
/// an older agent can answer a newer agentctl's reads.
public struct ControlRequest: Codable, Sendable, Hashable {
    public var command: ControlCommand
    /// Job identifier or run id, for the verbs that take one.
    public var target: String?
    /// Limit on returned rows (history). The agent may return fewer: a page is also bounded in
    /// bytes, and `ControlResponse.nextCursor` says where to go on.
    public var limit: Int?
    /// `history`: continue after this run (the `nextCursor` of the previous page); nil for the
    /// newest runs.
    public var cursor: String?
    /// `history`: leave out the runs' log tails (tables and statistics do not show them), so a
    /// page holds many more runs.
    public var omitLogTails: Bool?
    /// `submit`: what a person asked for.
    public var submission: SubmitRequest?
    /// `lowpower`: on, off or auto (later).
    public var mode: String?
    /// `run-if-stale`: the largest acceptable age of the last success, in seconds.
    public var maxAgeSeconds: Int64?
    /// `subscribe`: which events to send; nil for all.
    public var filter: EventFilter?
    /// `request`: its earliest begin and requirements.
    public var request: RunRequestOptions?
    /// `cancel-request`: every identifier the caller may change (`--all`), not `target`.
    public var all: Bool?
    /// `history`: only runs started at or after / before this instant (RFC 3339 in JSON), so a
    /// page and its cursor stay right (`agentctl history --since T --until T`).
    @OptionalInstant<EpochMilliseconds> public var since: Int64?
    @OptionalInstant<EpochMilliseconds> public var until: Int64?

    public init(command: ControlCommand, target: String? = nil, limit: Int? = nil,
                submission: SubmitRequest? = nil, mode: String? = nil, maxAgeSeconds: Int64? = nil,
                cursor: String? = nil, omitLogTails: Bool? = nil, filter: EventFilter? = nil,
                request: RunRequestOptions? = nil, all: Bool? = nil, since: Int64? = nil, until: Int64? = nil) {
        self.since = since
        self.until = until
        self.request = request
        self.all = all
        self.filter = filter
        self.omitLogTails = omitLogTails
        self.maxAgeSeconds = maxAgeSeconds
        self.cursor = cursor
        self.command = command
        self.target = target
        self.limit = limit
        self.submission = submission
        self.mode = mode
    }
}

/// `agentctl submit ID [--title T] [--subtitle S] [--strategy queue|fail] [-- ARGS]`.
public struct SubmitRequest: Codable, Sendable, Hashable {
    public var title: String?
    public var subtitle: String?
    /// `queue` (default) or `fail`.
    public var strategy: String
    public var arguments: [String]
    /// `--no-notify`: false; absent leaves it to the job's `Notify=` (per-user agent).
    public var notify: Bool?

    public init(title: String? = nil, subtitle: String? = nil, strategy: String = "queue", arguments: [String] = [],
                notify: Bool? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.strategy = strategy
        self.arguments = arguments
        self.notify = notify
    }
}

/// The verbs the agent answers. Reads are open to every local user (their details redacted,
/// `ReadRedaction`); changes need root or group `agentd`, or — for the verbs that act for one
/// identifier — a manifest's `Users=`/`Groups=` or one of its runs (see `ControlCommand.access`).
public enum ControlCommand: String, Codable, Sendable, CaseIterable {
    case status
    case list
    case history
    case cancel
    case simulateLaunch = "simulate-launch"
    case simulateExpire = "simulate-expire"
    case pending
    case explain
    case trigger
    case submit
    case enable
    case disable
    case pause
    case resume
    case runIfStale = "run-if-stale"
    /// `agentctl lowpower on|off|auto` (`mode`).
    case lowpower
    /// `agentctl resources`: GPUs and the other `Resources=` the machine has.
    case resources
    /// `agentctl metrics`: the agent's state as numbers (`ControlResponse.metrics`).
    case metrics
    /// Turns the connection into a stream of `AgentEvent` lines (`filter`); requests sent after it
    /// on the same connection are still answered, their responses between the events.
    case subscribe
    /// `agentctl request ID`: a refresh or processing identifier's pending request (`request`),
    /// replacing the one pending; answered once it is durable.
    case request
    /// `agentctl cancel-request ID|--all`: withdraws pending requests and queued submissions,
    /// never a live run (`cancel` stops live runs only).
    case cancelRequest = "cancel-request"
    /// `agentctl logs ID|RUN [-n N]`: the output lines a job's runs (or one run) kept, newest
    /// run last, at most `limit` lines (`ControlResponse.runs`, each run's `logTail`, oldest
    /// run first). Live lines follow through `subscribe` with kind `run-output`.
    case logs
    /// `agentctl run ID`: a run now, policy bypassed, reason `manual` (the administrator's
    /// "run it now"; `simulate-launch` is the iOS-minded root-only form).
    case run

    /// Who may use a verb (DESIGN §9).
    public enum Access: Sendable {
        /// Everyone; what a reader sees of a job depends on who they are (`ReadRedaction`).
        case read
        /// Root and group `agentd` (the per-user agent: its user).
        case change
        /// Acts for one identifier (or run): root and group `agentd`, and also the users and
        /// groups its manifest names (`Users=`, `Groups=`) and that manifest's own runs.
        case identifier
        case root
    }

    public var access: Access {
        switch self {
        case .status, .list, .history, .pending, .explain, .resources, .metrics, .subscribe, .logs: return .read
        case .cancel, .trigger, .submit, .request, .cancelRequest, .run: return .identifier
        case .enable, .disable, .pause, .resume, .runIfStale: return .change
        case .simulateLaunch, .simulateExpire, .lowpower: return .root
        }
    }
}
