// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// A closed set whose values travel as one JSON string (`run-ended`, `failure(exit 1)`).
public protocol WireText: Hashable, Sendable {
    /// The value whose ``wireText`` is exactly `text`, or nil.
    init?(wireText text: String)
    var wireText: String { get }
}

/// A value of a set a newer agentd may extend (event kinds, stop reasons): the case this build
/// knows, or the text it does not, kept so it can still be shown and sent on unchanged.
///
/// Only where an agentctl (or the app library) must read a newer agentd's answers, and where
/// the store reads rows a newer agentd wrote: everything this build produces is `.known`.
public enum Reported<Value: WireText>: Hashable, Sendable, Codable, CustomStringConvertible {
    case known(Value)
    /// Text this build cannot parse.
    case unknown(String)

    public init(_ value: Value) { self = .known(value) }

    /// `text` parsed, or kept as it is.
    public init(text: String) {
        self = Value(wireText: text).map(Reported.known) ?? .unknown(text)
    }

    /// The value, when this build knows it.
    public var known: Value? {
        if case .known(let value) = self { return value }
        return nil
    }

    /// The wire text, known or not.
    public var description: String {
        switch self {
        case .known(let value): value.wireText
        case .unknown(let text): text
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(text: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension EventKind: WireText {
    public init?(wireText text: String) { self.init(rawValue: text) }
    public var wireText: String { rawValue }
}

extension RunReason: WireText {
    public init?(wireText text: String) { self.init(rawValue: text) }
    public var wireText: String { rawValue }
}

/// Why a live run is being stopped, as `status` shows it: a stop reason, or `agent stopping`.
extension RunStop: WireText {
    public init?(wireText text: String) {
        if text == RunStop.agentStopping.description {
            self = .agentStopping
            return
        }
        switch StopReason(parsing: text) {
        case .expired(let reason)?: self = .expired(reason)
        case .cancelled?: self = .cancelled
        default: return nil
        }
    }
    public var wireText: String { description }
}

extension StopReason: WireText {
    public init?(wireText text: String) { self.init(parsing: text) }
    public var wireText: String { description }
}

/// `"failure(exit 3)"` parsed as the agent's text would be (tests and fixtures).
extension Reported: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) { self.init(text: text) }
}

extension WaitCode: WireText {
    public init?(wireText text: String) { self.init(rawValue: text) }
    public var wireText: String { rawValue }
}
