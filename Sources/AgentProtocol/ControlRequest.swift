/// One request on the control socket: a JSON object on one line (DESIGN §9).
///
/// `command` selects the verb; the other fields are its arguments. Unknown fields are ignored so
/// an older agent can answer a newer agentctl's reads.
public struct ControlRequest: Codable, Sendable, Hashable {
    public var command: ControlCommand
    /// Job identifier or run id, for the verbs that take one.
    public var target: String?
    /// Limit on returned rows (history).
    public var limit: Int?

    public init(command: ControlCommand, target: String? = nil, limit: Int? = nil) {
        self.command = command
        self.target = target
        self.limit = limit
    }
}

/// The verbs the agent answers. Reads are open to anyone who can connect; changes need root or
/// group `agentd` (see `ControlCommand.access`).
public enum ControlCommand: String, Codable, Sendable, CaseIterable {
    case status
    case list
    case history
    case cancel
    case simulateLaunch = "simulate-launch"
    case simulateExpire = "simulate-expire"

    /// Who may use a verb.
    public enum Access: Sendable { case read, change, root }

    public var access: Access {
        switch self {
        case .status, .list, .history: return .read
        case .cancel: return .change
        case .simulateLaunch, .simulateExpire: return .root
        }
    }
}
