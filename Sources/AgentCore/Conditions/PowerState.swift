// SPDX-License-Identifier: Apache-2.0
/// External power and battery, derived from every `power_supply` (DESIGN §6).
public struct PowerState: Sendable, Hashable, Codable {
    /// A Mains, USB, UPS or Wireless supply (not `scope=Device`) with `online` ≥ 1, or no system
    /// battery at all (docs/kernel-inputs.md).
    public var externalPower: Bool
    /// nil when the machine has no system battery.
    public var battery: BatteryLevel?

    public init(externalPower: Bool, battery: BatteryLevel?) {
        self.externalPower = externalPower
        self.battery = battery
    }

    /// A desktop: mains, no battery.
    public static let mains = PowerState(externalPower: true, battery: nil)
}
