// SPDX-License-Identifier: Apache-2.0
/// Everything the policy table (DESIGN §6) reads about the machine, as the shell last saw it.
///
/// The shell re-reads sysfs, PSI and netlink on kernel events and sends `.conditionsChanged`
/// when any of these change; the core never reads them itself. Where a source is missing the
/// shell keeps the permissive default (mains, nominal, network up and unmetered, no pressure) and says so in
/// `status` — a missing sensor must not stop all work.
public struct Conditions: Sendable, Hashable, Codable {
    public var power: PowerState
    /// `platform_profile` = low-power, power-profiles-daemon's power-saver, or `agentctl lowpower on`.
    public var lowPower: Bool
    public var thermal: ThermalState
    /// A default route exists.
    public var network: Bool
    /// Whether that network is metered (NetworkManager's `Metered`; `no` without NetworkManager).
    public var metered: NetworkMetering
    /// PSI memory pressure above the agent's threshold.
    public var memoryPressure: Bool
    /// PSI CPU pressure above the idle threshold: `RequiresIdle=` jobs wait.
    public var cpuBusy: Bool
    /// `Resources=` names the machine has (`gpu`).
    public var resources: Set<String>
    /// logind said the machine is about to sleep (`PrepareForSleep(true)`) and has not yet said
    /// it resumed: nothing starts, runs are frozen or expired `expired(sleep)` (DESIGN §6).
    public var sleeping: Bool = false
    /// Whether the user is away (logind's idle and locked hints), for `RequiresIdle=`.
    public var presence: UserPresence = .unknown

    public init(power: PowerState = .mains, lowPower: Bool = false, thermal: ThermalState = .nominal,
                network: Bool = true, metered: NetworkMetering = .no, memoryPressure: Bool = false, cpuBusy: Bool = false,
                resources: Set<String> = ["gpu"])
    {
        self.power = power
        self.lowPower = lowPower
        self.thermal = thermal
        self.network = network
        self.metered = metered
        self.memoryPressure = memoryPressure
        self.cpuBusy = cpuBusy
        self.resources = resources
    }

    /// The battery level below `threshold` percent while discharging.
    func batteryBelow(_ threshold: Int) -> Bool {
        guard let battery = power.battery, battery.discharging, !power.externalPower else { return false }
        return battery.percent < threshold
    }
}
