// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Foundation

extension BGTaskScheduler {
    /// Why a call failed, as Apple's `BGTaskScheduler.Error` has it; `message` is the agent's
    /// own sentence, which says what to do next.
    public struct Error: Swift.Error, CustomStringConvertible, Sendable, Hashable {
        public enum Code: Int, Sendable {
            /// The agent is not reachable or does not answer, or refuses for now (paused, denied,
            /// a resource the machine lacks, the state cannot be written).
            case unavailable = 1
            /// Too many pending requests of this identifier (16 queued continued submissions).
            case tooManyPendingTaskRequests = 2
            /// No job, or no manifest, permits this identifier for this kind of request (or it is
            /// no identifier at all); or the caller may not change it. As on iOS, where an
            /// identifier missing from `BGTaskSchedulerPermittedIdentifiers` is not permitted.
            case notPermitted = 3
            /// A continued request with strategy `.fail` that cannot start now, whatever the
            /// reason (the message says it: no slot, a resource the machine lacks…).
            case immediateRunIneligible = 4
        }

        public let code: Code
        public let message: String

        public init(_ code: Code, _ message: String = "") {
            self.code = code
            self.message = message
        }

        public var description: String { "BGTaskScheduler.Error(\(code)): \(message)" }

        // What Swift gives Apple's NSError-bridged error, so iOS code keeps compiling:
        // `catch BGTaskScheduler.Error.notPermitted`, `error.code == .unavailable`.
        public static var unavailable: Code { .unavailable }
        public static var tooManyPendingTaskRequests: Code { .tooManyPendingTaskRequests }
        public static var notPermitted: Code { .notPermitted }
        public static var immediateRunIneligible: Code { .immediateRunIneligible }

        /// The agent's answer as Apple's code: `not-permitted`, `access-denied`, `not-found` (no
        /// such job) and `bad-request` (no identifier: the library builds every other field) are
        /// `.notPermitted`, `too-many-pending` `.tooManyPendingTaskRequests`, a continued `.fail`
        /// request the agent cannot start now `.immediateRunIneligible`, everything else
        /// `.unavailable`.
        public static func code(for answer: ControlError.Code, failFast: Bool) -> Code {
            switch answer {
            case .notPermitted, .accessDenied, .notFound, .badRequest: .notPermitted
            case .tooManyPending: .tooManyPendingTaskRequests
            case .unavailable where failFast: .immediateRunIneligible
            case .unavailable, .requestTooLarge, .internal: .unavailable
            }
        }
    }
}

extension BGTaskScheduler.Error.Code {
    /// `catch BGTaskScheduler.Error.notPermitted { … }`: a thrown error of this code.
    public static func ~= (match: Self, error: any Swift.Error) -> Bool {
        (error as? BGTaskScheduler.Error)?.code == match
    }
}

/// As on iOS, the error is an NSError of domain `BGTaskSchedulerErrorDomain` with Apple's codes,
/// and its `localizedDescription` is the agent's message (which says what to do next).
extension BGTaskScheduler.Error: CustomNSError, LocalizedError {
    public static var errorDomain: String { BGTaskSchedulerErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: errorDescription ?? ""] }
    public var errorDescription: String? { message.isEmpty ? "\(code)" : message }
}

/// Apple's name for the domain of `BGTaskScheduler.Error`.
public let BGTaskSchedulerErrorDomain = "BGTaskSchedulerErrorDomain"
