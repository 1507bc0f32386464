// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

extension ControlHandler {
    /// `agentctl lowpower on|off|auto` (root only, DESIGN §9).
    func lowPower(_ mode: LowPowerMode) -> ControlResponse {
        let saved = conditions.setLowPowerMode(mode)
        let now = conditions.conditions.lowPower ? "on" : "off"
        let note = saved ? "" : " (not saved: the state directory is not writable; it lasts until agentd restarts)"
        switch mode {
        case .auto: return .success(.done(message: "low-power mode follows the machine: now \(now)\(note)"))
        case .on, .off: return .success(.done(message: "low-power mode \(mode.rawValue) until agentctl lowpower auto\(note)"))
        }
    }
}
