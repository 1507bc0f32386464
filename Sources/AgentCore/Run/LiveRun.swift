// SPDX-License-Identifier: Apache-2.0
/// What the agent knows about a run while it is live: who it is, what the plugin last reported,
/// and whether the agent has asked it to stop. Pure: the daemon feeds it directives and times;
/// it says what to persist.
public struct LiveRun: Sendable {
    public let id: RunID
    public let identifier: Identifier
    public let kind: JobKind
    public let reason: RunReason
    /// Unix seconds at launch.
    public let startedAt: Int64
    /// Unix seconds of the SIGTERM for MaxRuntime, if any (`AGENTD_DEADLINE`).
    public let deadline: Int64?

    public private(set) var progress: Progress?
    public private(set) var title: String?
    public private(set) var subtitle: String?
    public private(set) var statusText: String?
    public private(set) var checkpoint: String?
    public private(set) var invalidDirectives = 0
    public private(set) var logTail = LogTail()
    public private(set) var outputLines = 0

    /// Set once the agent starts the teardown; the run then ends `expired(reason)` however it exits.
    public private(set) var expiredFor: ExpiryReason?
    public private(set) var cancelled = false
    public private(set) var termination: ProcessTermination?

    public init(id: RunID, identifier: Identifier, kind: JobKind, reason: RunReason,
                startedAt: Int64, deadline: Int64?, checkpoint: String?) {
        self.id = id
        self.identifier = identifier
        self.kind = kind
        self.reason = reason
        self.startedAt = startedAt
        self.deadline = deadline
        self.checkpoint = checkpoint
    }

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
        case .log(let line):
            logTail.append(line)
            return .logLine(line)
        case .invalid(let reason):
            invalidDirectives += 1
            return .invalid(reason)
        }
    }

    /// A stderr line: always a log line.
    public mutating func appendLog(_ line: String) {
        outputLines += 1
        logTail.append(line)
    }

    /// Marks the run expired; returns false when it already was (the first reason stands).
    public mutating func expire(_ reason: ExpiryReason) -> Bool {
        guard expiredFor == nil, !cancelled else { return false }
        expiredFor = reason
        return true
    }

    /// Marks the run cancelled by a person; returns false when it was already stopping.
    public mutating func cancel() -> Bool {
        guard expiredFor == nil, !cancelled else { return false }
        cancelled = true
        return true
    }

    public var isStopping: Bool { expiredFor != nil || cancelled }

    public mutating func recordTermination(_ value: ProcessTermination) {
        termination = value
    }

    /// The stop reason once every process has gone (DESIGN §5, §7).
    public var stopReason: StopReason? {
        termination.map { StopReason.resolve(termination: $0, expiredFor: expiredFor, cancelled: cancelled) }
    }
}
