// SPDX-License-Identifier: Apache-2.0
/// What the agent knows about a run while it is live: who it is, what the plugin last reported,
/// and its ``RunLifecycle`` (limits, pause, teardown, result). Pure: the daemon feeds it
/// directives, events and times; it says what to persist and what to do.
public struct LiveRun: Sendable {
    public let id: RunID
    public let identifier: Identifier
    public let kind: JobKind
    public let reason: RunReason
    /// Unix seconds at launch.
    public let startedAt: Int64
    public private(set) var lifecycle: RunLifecycle

    public private(set) var progress: Progress?
    public private(set) var title: String?
    public private(set) var subtitle: String?
    public private(set) var statusText: String?
    public private(set) var checkpoint: String?
    /// The checkpoint the run started with (`AGENTD_CHECKPOINT`), kept in its record beside the
    /// one it left (``checkpoint`` at its end).
    public let checkpointGiven: String?
    /// The last accepted `RESULT=`.
    public private(set) var result: String?
    /// What the run that chained this one handed on (`OnSuccess=`), if any.
    public let chainedInput: ChainedInput?
    public private(set) var invalidDirectives = 0
    public private(set) var logTail = LogTail()
    public private(set) var outputLines = 0

    public init(id: RunID, identifier: Identifier, kind: JobKind, reason: RunReason,
                startedAt: Int64, settings: RunLifecycle.Settings, checkpoint: String?,
                chainedInput: ChainedInput? = nil) {
        self.id = id
        self.identifier = identifier
        self.kind = kind
        self.reason = reason
        self.startedAt = startedAt
        self.lifecycle = RunLifecycle(settings: settings)
        self.checkpoint = checkpoint
        self.checkpointGiven = checkpoint
        self.chainedInput = chainedInput
    }

    /// Hands an event to the run's lifecycle: the actions the daemon must carry out, in order.
    public mutating func handle(_ event: RunLifecycleEvent, now: Duration) -> [RunAction] {
        lifecycle.handle(event, now: now)
    }

    /// The SIGTERM time for `MaxRuntime=` (unix seconds): `AGENTD_DEADLINE` at spawn, moved
    /// by pauses since (what status shows).
    public var deadline: Int64? { lifecycle.wallDeadline }

    /// What a directive changed that the daemon must act on.
    public enum Effect: Equatable, Sendable {
        case none
        case progressed
        case checkpointed(String)
        case logLine(String)
        case invalid(InvalidDirective)
    }

    /// Applies one stdout line's directive.
    public mutating func apply(_ directive: PluginDirective) -> Effect {
        outputLines += 1
        switch directive {
        case .progress(let value):
            progress = value
            return .progressed
        case .title(let text):
            title = text
            return .none
        case .subtitle(let text):
            subtitle = text
            return .none
        case .status(let text):
            statusText = text
            return .none
        case .checkpoint(let value):
            checkpoint = value
            return .checkpointed(value)
        case .result(let text):
            result = text
            return .none
        case .log(let line):
            logTail.append(line)
            return .logLine(line)
        case .invalid(let reason):
            invalidDirectives += 1
            return .invalid(reason)
        }
    }

    /// The whole percent the scheduler last heard of.
    public private(set) var reportedPercent: Int?

    /// After a `PROGRESS=` line: the fraction the scheduler is to hear of, or nil when the whole
    /// percent did not change (it hears of changes, not of every line). 0.29 * 100 is 28.999…:
    /// a tolerance keeps a whole percent whole.
    public mutating func wholePercentChange() -> Double? {
        guard let fraction = progress?.fraction else { return nil }
        let percent = Int(fraction * 100 + 1e-9)
        guard percent != reportedPercent else { return nil }
        reportedPercent = percent
        return fraction
    }

    /// A stderr line: always a log line.
    public mutating func appendLog(_ line: String) {
        outputLines += 1
        logTail.append(line)
    }
}
