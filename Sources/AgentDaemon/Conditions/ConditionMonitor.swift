import AgentCore
import AgentProtocol
import AgentSystem

/// The machine's policy inputs (DESIGN §6), kept current from kernel events and handed to the
/// scheduler as `Conditions` whenever they change.
final class ConditionMonitor {
    private unowned let agent: Agent
    private(set) var lowPowerMode: LowPowerMode
    private let lowPowerSetting: LowPowerSetting
    /// What the machine reports (platform_profile, power-profiles-daemon).
    private var detectedLowPower = false
    private var lowPowerOrigin = "auto"
    private(set) var conditions = Conditions()
    private(set) var sources: [InputSource] = []
    private(set) var gpus: [GPUSummary] = []
    var onChange: ((Conditions) -> Void)?

    init(agent: Agent) {
        self.agent = agent
        lowPowerSetting = LowPowerSetting(stateDirectory: agent.options.stateDirectory)
        lowPowerMode = lowPowerSetting.load()
    }

    /// Reads everything once and starts the event sources.
    func start() {
        recompute()
    }

    /// `agentctl lowpower on|off|auto`.
    func setLowPowerMode(_ mode: LowPowerMode) -> Bool {
        lowPowerMode = mode
        let saved = lowPowerSetting.save(mode)
        recompute()
        return saved
    }

    /// Derives `Conditions` from the latest readings and reports a change.
    func recompute() {
        var next = conditions
        next.lowPower = lowPowerMode.resolve(detected: detectedLowPower)
        next.resources = gpus.isEmpty ? [] : ["gpu"]
        guard next != conditions else { return }
        conditions = next
        onChange?(next)
    }

    /// The inputs at a glance, for `status` and `resources`.
    var inputs: MachineInputs {
        let power = conditions.power
        let lowPowerText = lowPowerMode == .auto ? lowPowerOrigin : "\(lowPowerMode.rawValue) (agentctl)"
        return MachineInputs(
            power: power.externalPower ? "ac" : "battery", batteryPercent: power.battery?.percent,
            batteryStatus: power.battery.map { $0.discharging ? "discharging" : "charging" },
            lowPower: conditions.lowPower, lowPowerSource: lowPowerText,
            thermal: conditions.thermal.description, hottestZone: nil, hottestCelsius: nil,
            marginCelsius: nil, marginTrip: nil, network: conditions.network,
            memoryPressure: conditions.memoryPressure, cpuBusy: conditions.cpuBusy, sources: sources)
    }
}
