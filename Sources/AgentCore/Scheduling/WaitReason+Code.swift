// SPDX-License-Identifier: Apache-2.0
/// A wait reason as a word a script can switch on (`pending --json`'s `reason`, issue 29):
/// stable, lower case, hyphenated; the sentence (`waitingFor`) stays for people.
public enum WaitCode: String, Sendable, Hashable, CaseIterable {
    case interval
    case afterBoot = "after-boot"
    case budget
    case paused
    case maxConcurrent = "max-concurrent"
    case denied
    case restricted
    case triggerSpacing = "trigger-spacing"
    case retry
    case catchUp = "catch-up"
    case running
    case notDue = "not-due"
    case agentStopping = "agent-stopping"
    case schedule
    case window
    case condition
    case requested
}

extension WaitReason {
    public var code: WaitCode {
        switch self {
        case .interval: .interval
        case .afterBoot: .afterBoot
        case .budget: .budget
        case .paused: .paused
        case .maxConcurrent: .maxConcurrent
        case .denied: .denied
        case .restricted: .restricted
        case .triggerSpacing: .triggerSpacing
        case .retry: .retry
        case .catchUp: .catchUp
        case .running: .running
        case .notDue: .notDue
        case .agentStopping: .agentStopping
        case .schedule: .schedule
        case .window: .window
        case .condition: .condition
        case .requested: .requested
        }
    }
}
