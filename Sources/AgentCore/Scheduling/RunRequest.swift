// SPDX-License-Identifier: Apache-2.0
/// A run-time request of a refresh or processing identifier (`agentctl request`, the
/// `BackgroundTasks` library's `submit(BGAppRefreshTaskRequest)`; DESIGN §4): its own earliest
/// begin and what it requires on top of the job's keys. One is pending per identifier; a new
/// one replaces it, as on iOS.
public struct RunRequest: Sendable, Hashable, Codable {
    /// Not before this; a request for "as soon as possible" carries the time it was made.
    public var earliestBegin: SchedulerTime
    public var requirements: RequestRequirements

    public init(earliestBegin: SchedulerTime, requirements: RequestRequirements = RequestRequirements()) {
        self.earliestBegin = earliestBegin
        self.requirements = requirements
    }
}

/// What a request requires besides the job's own `Requires…=` keys. It can only add: a job
/// that requires external power still does when a request does not ask for it.
public struct RequestRequirements: Sendable, Hashable, Codable {
    /// `--requires-network[=unmetered]` (`requiresNetworkConnectivity`).
    public var network: NetworkRequirement
    /// `--requires-external-power` (`requiresExternalPower`).
    public var externalPower: Bool

    public init(network: NetworkRequirement = .no, externalPower: Bool = false) {
        self.network = network
        self.externalPower = externalPower
    }

    public var isEmpty: Bool { network == .no && !externalPower }

    /// `network, external power`, for pending, explain and the log; empty when none.
    public var description: String {
        var parts: [String] = []
        switch network {
        case .no: break
        case .yes: parts.append("network")
        case .unmetered: parts.append("unmetered network")
        }
        if externalPower { parts.append("external power") }
        return parts.joined(separator: ", ")
    }

    /// `definition` with these requirements added to its keys (never removed from them).
    public func adding(to definition: JobDefinition) -> JobDefinition {
        var result = definition
        if network != .no, !result.requiresNetwork { result.requiresNetwork = true }
        if network == .unmetered, !result.requiresUnmeteredNetwork { result.requiresUnmeteredNetwork = true }
        if externalPower, !result.requiresExternalPower { result.requiresExternalPower = true }
        return result
    }
}

extension NetworkRequirement: Codable {}

/// What `cancel-request` withdrew from one identifier.
public struct WithdrawnWork: Sendable, Hashable {
    /// The pending request of a refresh or processing identifier (a request, trigger, retry or
    /// chain: they are one request), 0 or 1.
    public var requests: Int
    /// Queued continued submissions.
    public var submissions: Int

    public init(requests: Int = 0, submissions: Int = 0) {
        self.requests = requests
        self.submissions = submissions
    }

    public var isEmpty: Bool { requests == 0 && submissions == 0 }

    public static func + (a: WithdrawnWork, b: WithdrawnWork) -> WithdrawnWork {
        WithdrawnWork(requests: a.requests + b.requests, submissions: a.submissions + b.submissions)
    }

    /// `withdrew 1 request`, `withdrew 1 request and 2 submissions`, `nothing was pending`.
    public var description: String {
        guard !isEmpty else { return "nothing was pending" }
        func count(_ n: Int, _ noun: String) -> String? { n == 0 ? nil : "\(n) \(noun)\(n == 1 ? "" : "s")" }
        return "withdrew " + [count(requests, "request"), count(submissions, "submission")]
            .compactMap { $0 }.joined(separator: " and ")
    }
}
