// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The agent's answer to one request: what the verb asked for, or why not (DESIGN §9). On the
/// wire, one flat JSON object (``ControlResponseFields``).
public typealias ControlResponse = Result<ControlAnswer, ControlError>

extension Result where Failure == ControlError {
    public static func failure(_ code: ControlError.Code, _ message: String) -> Self {
        .failure(ControlError(code: code, message: message))
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
