// SPDX-License-Identifier: Apache-2.0
/// `agentctl lowpower on|off|auto`: a person's word over what the machine reports.
public enum LowPowerMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Follow `platform_profile` and power-profiles-daemon.
    case auto
    /// Low-power mode whatever the machine says.
    case on
    /// Never low-power mode.
    case off

    /// Low-power mode under this setting, given what the machine reports.
    public func resolve(detected: Bool) -> Bool {
        switch self {
        case .auto: detected
        case .on: true
        case .off: false
        }
    }
}
