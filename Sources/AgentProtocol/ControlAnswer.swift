// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// What the agent answers a request it carried out with: one value per answer shape, holding
/// exactly what that shape has. A refusal is a ``ControlError`` instead (``ControlResponse``).
///
/// On the wire it is the flat object agentd has always sent (``ControlResponseFields``,
/// unchanged): which shape a line holds follows from the verb that asked, so agentctl and the
/// BackgroundTasks library type it knowing what they sent.
public enum ControlAnswer: Sendable {
    /// `status`.
    case status(StatusReport)
    /// `list`: the jobs, or a page of them and where the next page starts (nil on the last).
    case jobs([JobSummary], nextOffset: Int? = nil)
    /// `history`: runs newest first; `nextCursor` is where the next page starts, nil on the last.
    case runs([RunRecord], nextCursor: RunCursor?)
    /// `logs`: runs oldest first, their kept lines in `logTail`; `sequence` is the last event
    /// published before the answer.
    case logs([RunRecord], nextCursor: RunCursor?, sequence: UInt64)
    /// `pending`: what waits, or a page of it and where the next page starts (nil on the last).
    case pending([PendingSummary], nextOffset: Int? = nil)
    /// `explain`: what happened to the identifier, and what of it waits; the kind of the job
    /// that runs it (nil when no registered job does) and the jobs whose `OnSuccess=` start it.
    case explanation(timeline: [TimelineRecord], pending: [PendingSummary], kind: JobKind? = nil, chainedBy: [String] = [])
    /// `resources`: the GPUs found, and the machine's inputs (nil from an agent too old to say).
    case resources(gpus: [GPUSummary], inputs: MachineInputs?)
    /// `metrics`: the figures agentctl renders in the Prometheus text format, or a page of them
    /// (its jobs' figures; every page has the agent's own) and where the next page starts.
    case metrics(MetricsSnapshot, nextOffset: Int? = nil)
    /// `subscribe`: the sequence number of the last event published before the subscription;
    /// the stream starts after it.
    case subscribed(sequence: UInt64)
    /// A change carried out: a short human answer (`started run r000042`), the run it concerned
    /// (launch, expire, cancel, a submission that started), the submission's number (`submit`:
    /// its `run-started` and `request-*` events carry it) and, for a `trigger` that started
    /// nothing yet, what now waits.
    case done(message: String, runID: String? = nil, requestID: Int64? = nil, pending: [PendingSummary]? = nil)
}

/// An answer that does not hold what its request asked for: the agent is another version (or
/// not agentd), or the caller asked the wrong shape of it.
public struct ControlAnswerMismatch: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    /// `the agent's answer to status had no status`.
    static func missing(_ field: String, answering command: ControlCommand) -> Self {
        Self("the agent's answer to \(command.rawValue) had no \(field)")
    }
}

/// The payload of each answer shape, for the side that sent the request: the case its verb is
/// answered with, or ``ControlAnswerMismatch`` for another.
extension ControlAnswer {
    public func status() throws(ControlAnswerMismatch) -> StatusReport {
        if case .status(let report) = self { return report }
        throw mismatch("status")
    }

    public func jobs() throws(ControlAnswerMismatch) -> [JobSummary] {
        if case .jobs(let jobs, _) = self { return jobs }
        throw mismatch("jobs")
    }

    /// A page of `history` or `logs`.
    public func runs() throws(ControlAnswerMismatch) -> (page: [RunRecord], nextCursor: RunCursor?) {
        switch self {
        case .runs(let page, let next), .logs(let page, let next, _): return (page, next)
        default: throw mismatch("runs")
        }
    }

    /// Where the next page of a paged `list` or `pending` starts; nil on the last page, and for
    /// every other answer.
    public var nextOffset: Int? {
        switch self {
        case .jobs(_, let next), .pending(_, let next), .metrics(_, let next): next
        default: nil
        }
    }

    public func pending() throws(ControlAnswerMismatch) -> [PendingSummary] {
        if case .pending(let waiting, _) = self { return waiting }
        throw mismatch("pending")
    }

    public func explanation() throws(ControlAnswerMismatch)
        -> (timeline: [TimelineRecord], pending: [PendingSummary], kind: JobKind?, chainedBy: [String]) {
        if case .explanation(let timeline, let pending, let kind, let chainedBy) = self { return (timeline, pending, kind, chainedBy) }
        throw mismatch("explanation")
    }

    public func resources() throws(ControlAnswerMismatch) -> (gpus: [GPUSummary], inputs: MachineInputs?) {
        if case .resources(let gpus, let inputs) = self { return (gpus, inputs) }
        throw mismatch("resources")
    }

    public func metrics() throws(ControlAnswerMismatch) -> MetricsSnapshot {
        if case .metrics(let snapshot, _) = self { return snapshot }
        throw mismatch("metrics")
    }

    /// What a change did: its message, its run and its submission's number.
    public func done() throws(ControlAnswerMismatch) -> (message: String, runID: String?, requestID: Int64?) {
        if case .done(let message, let runID, let requestID, _) = self { return (message, runID, requestID) }
        throw mismatch("a change's message")
    }

    /// The shape, as a word for errors.
    var shape: String {
        switch self {
        case .status: "status"
        case .jobs: "jobs"
        case .runs: "runs"
        case .logs: "logs"
        case .pending: "pending"
        case .explanation: "explanation"
        case .resources: "resources"
        case .metrics: "metrics"
        case .subscribed: "subscribed"
        case .done: "a change's message"
        }
    }

    private func mismatch(_ wanted: String) -> ControlAnswerMismatch {
        ControlAnswerMismatch("expected \(wanted) in the agent's answer, got \(shape)")
    }
}

/// One line of `agentctl explain`: when, and what happened.
public struct TimelineRecord: Codable, Sendable, Hashable {
    /// Unix seconds (RFC 3339 in JSON).
    @Instant<EpochFractionalSeconds> public var time: Double
    public var event: String

    public init(time: Double, event: String) {
        self.time = time
        self.event = event
    }

    /// The last line `explain` gives a job that cannot run (not permitted, a duplicate): its
    /// `now:` names it.
    public static func notRegistered(_ why: String, at time: Double) -> TimelineRecord {
        TimelineRecord(time: time, event: notRegisteredPrefix + why)
    }

    /// Whether this is a ``notRegistered(_:at:)`` line.
    public var isNotRegistered: Bool { event.hasPrefix(Self.notRegisteredPrefix) }

    static let notRegisteredPrefix = "not registered: "
}
