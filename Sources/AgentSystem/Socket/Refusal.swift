// SPDX-License-Identifier: Apache-2.0
/// Why the transport turned a client or an answer away, with a sentence that says what to do.
///
/// The protocol layer decides how the line looks (`ControlServer.Refusals`); the words are here,
/// next to the limits they explain.
public struct Refusal: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// A request line exceeded `maxRequestBytes`.
        case requestTooLarge = "request-too-large"
        /// The peer's uid already holds `maxClientsPerUser` connections.
        case tooManyForUser = "too-many-connections-for-user"
        /// Every slot this peer may use is taken (the rest are reserved for root / group agentd).
        case tooManyClients = "too-many-clients"
        /// One answer is larger than `maxPendingOutput`.
        case responseTooLarge = "response-too-large"
        /// The unsent output (or held requests) of all clients together reached its limit.
        case busy = "busy"
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    static func requestTooLarge(limit: Int) -> Refusal {
        Refusal(kind: .requestTooLarge,
                message: "request exceeds \(limit) bytes (send one JSON request per line, each under \(limit / 1024) KiB)")
    }

    static func tooManyForUser(uid: UInt32, limit: Int) -> Refusal {
        Refusal(kind: .tooManyForUser,
                message: "uid \(uid) already has \(limit) connections to agentd, the most one user may hold; close some (other agentctl watch or events sessions, or scripts that keep connections open) and try again")
    }

    /// `reservedFor`: who the slots this peer may not use are kept for, and so who to run as.
    static func tooManyClients(limit: Int, reservedFor: Admission.Reserve?) -> Refusal {
        let cure: String
        switch reservedFor {
        case nil: cure = ""
        case .root?: cure = "; the remaining slots are kept for root: run agentctl as root"
        case .rootAndGroup?: cure = "; the remaining slots are kept for root and group agentd: run agentctl as root or as a member of group agentd"
        }
        return Refusal(kind: .tooManyClients,
                       message: "agentd is serving the \(limit) connections it allows for this peer; try again in a few seconds\(cure)")
    }

    /// `privilegedLimit`: what root and group agentd may be sent, when this client is neither
    /// (`list` and `status` of thousands of jobs have no smaller form to ask for).
    static func responseTooLarge(size: Int, limit: Int, privilegedLimit: Int? = nil) -> Refusal {
        let larger = privilegedLimit.map {
            "; root and group agentd are sent up to \($0 / 1024 / 1024) MiB: run it with sudo, or as a member of group agentd"
        } ?? ""
        return Refusal(kind: .responseTooLarge,
                       message: "the answer (\(size) bytes) exceeds the \(limit / 1024) KiB agentd sends to one client at a time; ask for less (agentctl history pages through long histories with --limit N)\(larger)")
    }

    static func busyReading(limit: Int) -> Refusal {
        Refusal(kind: .busy,
                message: "agentd already holds \(limit / 1024) KiB of unfinished requests from other clients; try again in a few seconds (root and group agentd are always answered)")
    }

    static func busy(limit: Int) -> Refusal {
        Refusal(kind: .busy,
                message: "agentd already holds \(limit / 1024) KiB of unsent answers for clients that do not read them; try again in a few seconds (root and group agentd are always answered)")
    }
}
