// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The agent's answer to one request: exactly one of `error` or a payload field is set.
public struct ControlResponse: Codable, Sendable {
    public var ok: Bool
    public var error: ControlError?
    public var status: StatusReport?
    public var jobs: [JobSummary]?
    public var runs: [RunRecord]?
    /// `history`: more runs follow; pass this as the next request's `cursor`. Nil on the last page.
    public var nextCursor: String?
    /// A short human answer for changes (`started run r000042`).
    public var message: String?
    /// The run a change concerned (launch, expire, cancel).
    public var runID: String?
    public var pending: [PendingSummary]?
    public var timeline: [TimelineRecord]?
    /// `resources`: the GPUs found and the inputs.
    public var gpus: [GPUSummary]?
    public var inputs: MachineInputs?
    /// `metrics`: the figures agentctl renders in the Prometheus text format.
    public var metrics: MetricsSnapshot?
    /// `subscribe`: the sequence number of the last event published before the subscription;
    /// the stream starts after it.
    public var sequence: UInt64?
    /// `submit`: the submission's number, which its `run-started` and `request-*` events carry.
    public var requestID: Int64?

    public init(ok: Bool = true, error: ControlError? = nil, status: StatusReport? = nil,
                jobs: [JobSummary]? = nil, runs: [RunRecord]? = nil, message: String? = nil,
                runID: String? = nil, pending: [PendingSummary]? = nil, timeline: [TimelineRecord]? = nil,
                gpus: [GPUSummary]? = nil, inputs: MachineInputs? = nil, nextCursor: String? = nil,
                metrics: MetricsSnapshot? = nil, sequence: UInt64? = nil, requestID: Int64? = nil) {
        self.metrics = metrics
        self.sequence = sequence
        self.requestID = requestID
        self.nextCursor = nextCursor
        self.gpus = gpus
        self.inputs = inputs
        self.ok = ok
        self.error = error
        self.status = status
        self.jobs = jobs
        self.runs = runs
        self.message = message
        self.runID = runID
        self.pending = pending
        self.timeline = timeline
    }

    public static func failure(_ code: ControlError.Code, _ message: String) -> ControlResponse {
        ControlResponse(ok: false, error: ControlError(code: code, message: message))
    }
}

/// A refused or failed request. `code` maps onto agentctl's exit status (DESIGN §8).
public struct ControlError: Codable, Sendable, Hashable, Error {
    public enum Code: String, Codable, Sendable {
        case badRequest = "bad-request"
        case requestTooLarge = "request-too-large"
        case notFound = "not-found"
        case notPermitted = "not-permitted"
        case tooManyPending = "too-many-pending"
        case unavailable
        case accessDenied = "access-denied"
        case `internal`

        /// The exit status agentctl returns for this error (DESIGN §8).
        public var exitStatus: Int32 {
            switch self {
            case .badRequest, .requestTooLarge, .notFound, .accessDenied, .internal: return 1
            case .notPermitted: return 3
            case .tooManyPending: return 4
            case .unavailable: return 5
            }
        }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
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
}
