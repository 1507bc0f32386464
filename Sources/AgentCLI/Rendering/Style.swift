// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
/// Colour for people, decided in one place: only on a terminal, never with `NO_COLOR` (any
/// non-empty value, as no-color.org says) nor with `TERM=dumb`.
///
/// Every command styles text through a `Style`, by role, so the same meaning has the same colour
/// everywhere: errors red, warnings yellow, success green, running work cyan, secondary text dim.
public struct Style: Sendable, Equatable {
    /// What a piece of text is, which decides its colour.
    public enum Role: Sendable, Hashable {
        case error
        case warning
        case success
        case running
        /// Secondary text: hints, placeholders, units.
        case dim
        /// Headings.
        case bold

        /// The SGR parameter for the role.
        var code: String {
            switch self {
            case .error: return "31"
            case .warning: return "33"
            case .success: return "32"
            case .running: return "36"
            case .dim: return "2"
            case .bold: return "1"
            }
        }
    }

    /// Whether escape codes are written at all.
    public var enabled: Bool

    public init(enabled: Bool) {
        self.enabled = enabled
    }

    /// No colour: for pipes, files, tests.
    public static let plain = Style(enabled: false)

    /// Decides colour for output on `isTerminal` given the environment.
    public static func decide(isTerminal: Bool, environment: [String: String]) -> Style {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let dumb = environment["TERM"] == "dumb"
        return Style(enabled: isTerminal && !noColor && !dumb)
    }

    /// `text` in the colour of `role` (unchanged when colour is off or `role` is nil).
    public func apply(_ role: Role?, _ text: String) -> String {
        guard enabled, let role, !text.isEmpty else { return text }
        return "\u{1B}[\(role.code)m\(text)\u{1B}[0m"
    }

    public func error(_ text: String) -> String { apply(.error, text) }
    public func warning(_ text: String) -> String { apply(.warning, text) }
    public func success(_ text: String) -> String { apply(.success, text) }
    public func running(_ text: String) -> String { apply(.running, text) }
    public func dim(_ text: String) -> String { apply(.dim, text) }

    /// The role for a run's stop reason (DESIGN §7): success green, failures and crashes red,
    /// expiries and cancellations yellow, a live run cyan.
    /// A newer agentd's reason this agentctl does not know is red.
    public static func role(forStopReason reason: Reported<StopReason>?) -> Role {
        guard let reason else { return .running }
        switch reason.known {
        case .success?: return .success
        case .expired?, .cancelled?: return .warning
        default: return .error
        }
    }
}
