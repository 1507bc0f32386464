// SPDX-License-Identifier: Apache-2.0
/// A wait reason as a word a script can switch on (`pending --json`'s `reason`, issue 29):
/// stable, lower case, hyphenated; the sentence (`waitingFor`) stays for people.
extension WaitReason {
    public var code: String {
        switch self {
        case .interval: "interval"
        case .budget: "budget"
        case .paused: "paused"
        case .maxConcurrent: "max-concurrent"
        case .denied: "denied"
        case .restricted: "restricted"
        case .triggerSpacing: "trigger-spacing"
        case .retry: "retry"
        case .catchUp: "catch-up"
        case .running: "running"
        case .notDue: "not-due"
        case .agentStopping: "agent-stopping"
        case .schedule: "schedule"
        case .window: "window"
        case .condition: "condition"
        case .requested: "requested"
        }
    }
}
