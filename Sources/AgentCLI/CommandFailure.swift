// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// A command that could not do its work: the message says what to do next; the status follows
/// DESIGN §8 (1 error, 2 usage, 3 not-permitted, 4 too-many-pending, 5 unavailable).
public struct CommandFailure: Error, Sendable, Equatable {
    public var exitStatus: Int32
    public var message: String
    /// True when nothing answered: no agent at the socket, or it did not answer in time. `watch`
    /// keeps retrying these.
    public var agentUnreachable: Bool

    public init(exitStatus: Int32, message: String, agentUnreachable: Bool = false) {
        self.exitStatus = exitStatus
        self.message = message
        self.agentUnreachable = agentUnreachable
    }

    /// An error agentd answered with, given a next step when agentd's message has none.
    public init(_ error: ControlError, command: ControlCommand) {
        self.init(exitStatus: error.code.exitStatus,
                  message: ErrorAdvice.withNextStep(error.message, code: error.code, command: command))
    }

    /// An answer without what agentctl asked for: most likely another version of agentd.
    public init(_ mismatch: ControlAnswerMismatch) {
        self.init(exitStatus: 1, message: "\(mismatch) (agentctl \(AgentVersion.string) and this agentd may be different versions; compare agentctl --version with agentctl status --json, and restart agentd after an upgrade)")
    }
}

/// Makes sure every error agentctl prints says what to do next.
///
/// Most of agentd's refusals already carry the next step (`no job local.x (see agentctl list)`,
/// `cancel changes the agent: run it as root or as a member of group agentd`); for the few that
/// do not (`agentd is stopping`, `local.x is already stopping`, internal failures), agentctl adds
/// one chosen by the error code.
public enum ErrorAdvice {
    /// Phrases that show a message already tells people what to do.
    static let nextStepMarkers = ["(see ", "(wait", "(is it", "(check", "agentctl ", "run it ", "add it", "sudo", "try ",
                                  "submit again"]

    /// Whether `message` already says what to do next.
    public static func hasNextStep(_ message: String) -> Bool {
        nextStepMarkers.contains { message.contains($0) }
    }

    /// `message`, with a next step for `code` appended when it has none.
    public static func withNextStep(_ message: String, code: ControlError.Code, command: ControlCommand) -> String {
        hasNextStep(message) ? message : "\(message) (\(nextStep(code: code, command: command)))"
    }

    /// The generic next step for an error code.
    public static func nextStep(code: ControlError.Code, command: ControlCommand) -> String {
        switch code {
        case .badRequest, .requestTooLarge:
            return "see agentctl --help; agentctl and agentd may be different versions, check agentctl --version"
        case .notFound:
            return "see agentctl list and agentctl status"
        case .notPermitted:
            return "see agentctl list for the manifest that would permit it"
        case .tooManyPending:
            return "wait for pending requests to finish, see agentctl status"
        case .unavailable:
            return "see agentctl status, then try again"
        case .accessDenied:
            return "run it as root, or as a member of group agentd"
        case .internal:
            return "see journalctl -u agentd for the cause"
        }
    }
}
