// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// One request on the control socket (DESIGN §9): one value per verb, holding exactly what that
/// verb takes.
///
/// On the wire it is one JSON object on one line, `command` naming the verb and the other fields
/// its arguments (``ControlRequestFields``, unchanged). Decoding checks them once, at the socket: a
/// verb without the target it needs, a strategy or mode that is not one, is refused as
/// `bad-request` naming the field (``ControlError``), before any handler sees it. Unknown fields
/// are ignored so an older agent can answer a newer agentctl's reads.
public enum ControlRequest: Sendable, Hashable {
    case status
    /// Every job the config directory defines, or one page of them.
    case list(page: PageRequest? = nil)
    /// Runs, newest first, one page at a time.
    case history(HistoryQuery)
    /// Stops a job's live runs, or one run: a job identifier or a run id.
    case cancel(target: String)
    case simulateLaunch(target: String)
    case simulateExpire(target: String)
    /// Waiting work: everything (or one page of it), or one identifier's.
    case pending(target: String?, page: PageRequest? = nil)
    case explain(target: String)
    case trigger(target: String)
    case submit(target: String, SubmitRequest)
    case enable(target: String)
    case disable(target: String)
    case pause
    case resume
    /// Runs now only if the last success is older than `maxAge` (`maxAgeSeconds`).
    case runIfStale(target: String, maxAge: Duration)
    case lowpower(LowPowerMode)
    case resources
    /// The agent's figures, or a page of them (by job: the first page has the agent's own).
    case metrics(page: PageRequest? = nil)
    /// Turns the connection into a stream of the events the filter lets through.
    case subscribe(EventFilter)
    /// A refresh or processing identifier's pending request, replacing the one pending.
    case request(target: String, RunRequestOptions)
    case cancelRequest(WithdrawalScope)
    case logs(LogsQuery)
    case run(target: String)

    /// The verb: its wire name and who may use it.
    public var command: ControlCommand {
        switch self {
        case .status: .status
        case .list: .list
        case .history: .history
        case .cancel: .cancel
        case .simulateLaunch: .simulateLaunch
        case .simulateExpire: .simulateExpire
        case .pending: .pending
        case .explain: .explain
        case .trigger: .trigger
        case .submit: .submit
        case .enable: .enable
        case .disable: .disable
        case .pause: .pause
        case .resume: .resume
        case .runIfStale: .runIfStale
        case .lowpower: .lowpower
        case .resources: .resources
        case .metrics: .metrics
        case .subscribe: .subscribe
        case .request: .request
        case .cancelRequest: .cancelRequest
        case .logs: .logs
        case .run: .run
        }
    }

    /// The job identifier or run id the request names, if any.
    public var target: String? {
        switch self {
        case .cancel(let target), .simulateLaunch(let target), .simulateExpire(let target), .explain(let target),
             .trigger(let target), .submit(let target, _), .enable(let target), .disable(let target),
             .runIfStale(let target, _), .request(let target, _), .run(let target):
            target
        case .pending(let target, _): target
        case .history(let query): query.target
        case .logs(let query): query.target
        case .cancelRequest(.identifier(let target, _)): target
        case .cancelRequest(.all), .status, .list, .pause, .resume, .lowpower, .resources, .metrics, .subscribe: nil
        }
    }
}

/// `history`'s arguments (`agentctl history [ID] [-n N] [--since T] [--until T]`).
public struct HistoryQuery: Sendable, Hashable {
    /// One identifier's runs; nil for every job's.
    public var target: String?
    /// Limit on returned rows. The agent may return fewer: a page is also bounded in bytes, and
    /// the answer's `nextCursor` says where to go on.
    public var limit: Int?
    /// Continue after this run (the `nextCursor` of the previous page); nil for the newest runs.
    public var cursor: RunCursor?
    /// Leave out the runs' log tails (tables and statistics do not show them), so a page holds
    /// many more runs.
    public var omitLogTails: Bool
    /// Only runs started at or after / before this instant, in milliseconds (RFC 3339 in JSON),
    /// so a page and its cursor stay right.
    public var since: Int64?
    public var until: Int64?

    public init(target: String? = nil, limit: Int? = nil, cursor: RunCursor? = nil, omitLogTails: Bool = false,
                since: Int64? = nil, until: Int64? = nil) {
        self.target = target
        self.limit = limit
        self.cursor = cursor
        self.omitLogTails = omitLogTails
        self.since = since
        self.until = until
    }
}

/// `logs`'s arguments (`agentctl logs ID|RUN [-n N]`): at most `limit` lines of the runs of a job,
/// or of one run, newest run last.
public struct LogsQuery: Sendable, Hashable {
    /// A job identifier or a run id (never empty).
    public var target: String
    public var limit: Int?
    /// Continue before this run (the `nextCursor` of the previous answer).
    public var cursor: RunCursor?

    public init(target: String, limit: Int? = nil, cursor: RunCursor? = nil) {
        self.target = target
        self.limit = limit
        self.cursor = cursor
    }
}

/// What `cancel-request` withdraws.
public enum WithdrawalScope: Sendable, Hashable {
    /// One identifier's pending request and queued submissions; a continued job's own
    /// identifier stands for the submissions of every dynamic identifier under it too, unless
    /// `exactly` (the BackgroundTasks library's `cancel(taskRequestWithIdentifier:)`).
    case identifier(String, exactly: Bool = false)
    /// Those of every identifier the caller may change (`--all`).
    case all
}

/// `agentctl submit ID [--title T] [--subtitle S] [--strategy queue|fail] [-- ARGS]`.
public struct SubmitRequest: Sendable, Hashable {
    public var title: String?
    public var subtitle: String?
    public var strategy: SubmitStrategy
    public var arguments: [String]
    /// `--no-notify`: false; absent leaves it to the job's `Notify=` (per-user agent).
    public var notify: Bool?

    public init(title: String? = nil, subtitle: String? = nil, strategy: SubmitStrategy = .queue, arguments: [String] = [],
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
    /// `agentctl metrics`: the agent's state as numbers (`ControlAnswer.metrics`).
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
    /// run last, at most `limit` lines (`ControlAnswer.logs`, each run's `logTail`, oldest
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

    /// Whether a request of this verb, sent but never answered, may still change something:
    /// the agent reads it whenever it runs again (a stopped or overloaded agent), even after
    /// its client gave up, so a client that timed out must not say it failed.
    public var changesState: Bool { access != .read }
}
