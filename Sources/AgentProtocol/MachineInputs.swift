// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The policy inputs at a glance, for `agentctl status` (DESIGN §6): power, low-power
/// mode, thermal state, network and whether it is metered, pressure, and which sources are live.
public struct MachineInputs: Codable, Sendable, Hashable {
    /// `ac` or `battery`.
    public var power: Reported<PowerInput>
    /// Combined system battery level, nil without a battery.
    public var batteryPercent: Int?
    /// `charging`, `discharging`, `full`, `not charging`, nil without a battery.
    public var batteryStatus: String?
    public var lowPower: Bool
    /// Where low-power mode comes from: `auto (platform_profile)`, `auto (power-profiles-daemon)`,
    /// `auto`, `on (agentctl)`, `off (agentctl)`.
    public var lowPowerSource: String
    /// `nominal`, `fair`, `serious`, `critical`.
    public var thermal: Reported<ThermalState>
    /// The zone that decides the thermal state, its temperature and its margin to its next trip.
    public var hottestZone: String?
    public var hottestCelsius: Double?
    public var marginCelsius: Double?
    public var marginTrip: String?
    /// A default route exists.
    public var network: Bool
    /// Whether the network counts as metered: `yes` (NetworkManager's yes or guess-yes), `no`
    /// (its no or guess-no, or no NetworkManager at all), `unknown` (it does not know: counted as
    /// unmetered), `checking` (no answer yet); nil from an agentd too old to say.
    public var metered: Reported<NetworkMetering>?
    /// Where that comes from: `NetworkManager: guess-yes`, `no NetworkManager on the system bus`…
    public var meteredSource: String?
    public var memoryPressure: Bool
    public var cpuBusy: Bool
    /// Each input source and how it is read.
    public var sources: [InputSource]
    /// `awake`, or `about to sleep` between logind's PrepareForSleep(true) and (false); nil
    /// from an agentd too old to say.
    public var sleep: String?
    /// The logind inhibitor locks agentd holds: `sleep delay` while runs are live, `idle block
    /// (TITLE)` per run that keeps the desktop awake; nil from an agentd too old to say.
    public var inhibitors: [String]?
    /// The user's presence for `RequiresIdle=`: `active`, `away since 2026-12-02 08:33:00 (2
    /// sessions idle or locked)`, or `unknown`; nil from an agentd too old to say.
    public var presence: String?
    /// What `RequiresIdle=` is judged by: `logind sessions and PSI`, or `PSI alone (…why)`.
    public var idleSource: String?
    /// `WakeSystem=`: `armed for Thu 03:00 (local.backup)`, or `refused: …` where the machine
    /// cannot wake itself; nil without a WakeSystem= slot to come.
    public var wakeAlarm: String?
    /// The instant the wake-up alarm is armed for, as the kernel reads it back (unix seconds; an
    /// RFC 3339 instant in JSON, as every instant: DESIGN §8).
    @OptionalInstant<EpochFractionalSeconds> public var wakeAlarmAt: Double?
    /// The per-user agent's desktop notifications: `on: last shown for run r000003`, `failing: …`,
    /// `waiting for a session bus at …`; nil from the system agent.
    public var notifications: String?

    public init(power: Reported<PowerInput>, batteryPercent: Int?, batteryStatus: String?, lowPower: Bool,
                lowPowerSource: String, thermal: Reported<ThermalState>, hottestZone: String?, hottestCelsius: Double?,
                marginCelsius: Double?, marginTrip: String?, network: Bool, metered: Reported<NetworkMetering>? = nil,
                meteredSource: String? = nil, memoryPressure: Bool, cpuBusy: Bool, sources: [InputSource],
                sleep: String? = nil, inhibitors: [String]? = nil, presence: String? = nil,
                idleSource: String? = nil, wakeAlarm: String? = nil, wakeAlarmAt: Double? = nil,
                notifications: String? = nil)
    {
        self.notifications = notifications
        self.wakeAlarm = wakeAlarm
        self.wakeAlarmAt = wakeAlarmAt
        self.presence = presence
        self.idleSource = idleSource
        self.sleep = sleep
        self.inhibitors = inhibitors
        self.power = power
        self.batteryPercent = batteryPercent
        self.batteryStatus = batteryStatus
        self.lowPower = lowPower
        self.lowPowerSource = lowPowerSource
        self.thermal = thermal
        self.hottestZone = hottestZone
        self.hottestCelsius = hottestCelsius
        self.marginCelsius = marginCelsius
        self.marginTrip = marginTrip
        self.network = network
        self.metered = metered
        self.meteredSource = meteredSource
        self.memoryPressure = memoryPressure
        self.cpuBusy = cpuBusy
        self.sources = sources
    }
}

/// One kernel or bus source of policy input.
public struct InputSource: Codable, Sendable, Hashable {
    /// `uevent`, `thermal-netlink`, `rtnetlink`, `psi`, `platform_profile`, `power-profiles`,
    /// `networkmanager`.
    public var name: String
    public var state: InputSourceState
    /// Why it is sampled or unavailable, or what it watches.
    public var detail: String?

    public init(name: String, state: InputSourceState, detail: String? = nil) {
        self.name = name
        self.state = state
        self.detail = detail
    }

    /// The agent's one system-bus connection, which logind, NetworkManager and power-profiles
    /// are read through.
    public static let systemBusName = "system-bus"
}

/// How an input source is read.
public enum InputSourceState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Events.
    case live
    /// Sparse reads: the event source is missing.
    case sampled
    case unavailable
}

/// A GPU for `Resources=gpu` (`agentctl resources`).
public struct GPUSummary: Codable, Sendable, Hashable {
    /// `card0`, `nvidia0`.
    public var name: String
    /// The kernel driver or device node.
    public var detail: String

    public init(name: String, detail: String) {
        self.name = name
        self.detail = detail
    }
}

/// Where the machine's power comes from, as `status` shows it.
public enum PowerInput: String, Sendable, Hashable, CaseIterable {
    /// External power, or no system battery at all (DESIGN §6).
    case ac
    case battery
}

extension PowerInput: WireText {
    public init?(wireText text: String) { self.init(rawValue: text) }
    public var wireText: String { rawValue }
}

extension ThermalState: WireText {
    public init?(wireText text: String) {
        guard let state = Self.allCases.first(where: { $0.description == text }) else { return nil }
        self = state
    }
    public var wireText: String { description }
}

extension NetworkMetering: WireText {
    public init?(wireText text: String) { self.init(rawValue: text) }
    public var wireText: String { rawValue }
}
