// SPDX-License-Identifier: Apache-2.0
import AgentCore

extension StopReason {
    /// The DESIGN §7 kind as a metric label: `success`, `failure`, `expired_max_runtime`,
    /// `cancelled`, `crashed`, `spawn_failed`, `agent_restart`, `skipped`. Exit statuses, signals and spawn
    /// texts are left out so the label has a fixed, small set of values.
    public var kindLabel: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .expired(let reason): "expired_" + reason.rawValue.replacingDashes()
        case .cancelled: "cancelled"
        case .crashed: "crashed"
        case .spawnFailed: "spawn_failed"
        case .agentRestart: "agent_restart"
        case .skipped: "skipped"
        }
    }

    /// Every value ``kindLabel`` takes.
    public static var kindLabels: [String] {
        ["success", "failure"] + ExpiryReason.allCases.map { "expired_" + $0.rawValue.replacingDashes() }
            + ["cancelled", "crashed", "spawn_failed", "agent_restart", "skipped"]
    }
}

private extension String {
    func replacingDashes() -> String {
        String(map { $0 == "-" ? "_" : $0 })
    }
}
