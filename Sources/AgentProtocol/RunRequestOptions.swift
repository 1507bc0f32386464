// SPDX-License-Identifier: Apache-2.0
import AgentCore
/// `request`'s arguments: `agentctl request ID [--earliest TIME|+SPAN]
/// [--requires-network[=unmetered]] [--requires-external-power]`, and the `BackgroundTasks`
/// library's `submit(BGAppRefreshTaskRequest / BGProcessingTaskRequest)`.
public struct RunRequestOptions: Codable, Sendable, Hashable {
    /// Not before this instant (an RFC 3339 string, docs/json.md); absent: as soon as policy
    /// allows.
    @OptionalInstant<EpochFractionalSeconds> public var earliestBegin: Double?
    /// Besides the job's `RequiresNetwork=`: a network, or an unmetered one.
    public var requiresNetwork: NetworkNeed?
    /// Besides the job's `RequiresExternalPower=`: external power.
    public var requiresExternalPower: Bool?
    /// The kind the asker means (the library's `BGAppRefreshTaskRequest` is `refresh`,
    /// `BGProcessingTaskRequest` `processing`): a job of another kind refuses it, as iOS refuses
    /// a request its app has no background mode for. Sent by the library only; never in answers.
    public var kind: RequestedKind?

    /// What a request may ask for: never continued work, which is submitted.
    public enum RequestedKind: String, Codable, Sendable, Hashable, CaseIterable {
        case refresh
        case processing

        /// The job kind it asks for.
        public var jobKind: JobKind { self == .refresh ? .refresh : .processing }
    }

    /// The network a request needs (`--requires-network[=unmetered]`).
    public enum NetworkNeed: String, Codable, Sendable, Hashable, CaseIterable {
        case any
        case unmetered
    }

    public init(earliestBegin: Double? = nil, requiresNetwork: NetworkNeed? = nil, requiresExternalPower: Bool? = nil,
                kind: RequestedKind? = nil) {
        self.earliestBegin = earliestBegin
        self.requiresNetwork = requiresNetwork
        self.requiresExternalPower = requiresExternalPower
        self.kind = kind
    }
}
