// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem
import Glibc

/// The machine's policy inputs (DESIGN §6), kept current from kernel events and handed to the
/// scheduler as `Conditions` whenever they change.
///
/// Nothing is polled while nothing is due: power and thermal zones are re-read on uevents
/// (a hint; sysfs is the truth), thermal zones also on thermal generic-netlink events and — to
/// see a zone creep toward a trip, which no event announces — every ``thermalSampleInterval``
/// only while work runs or is due; the default route comes from rtnetlink, pressure from PSI
/// triggers, power-profiles-daemon and NetworkManager's `Metered` over D-Bus (the latter in
/// `MeteredNetworkInput`). SIGHUP re-reads everything.
final class ConditionMonitor {
    static let thermalSampleInterval: Duration = .seconds(5)

    private let loop: EventLoop
    private let log: Logger
    /// Thermal thresholds (`[Thermal]` in agentd.conf), as last handed over.
    private var settings: AgentSettings
    /// Benchmarks read how many sysfs re-reads each hint cost.
    private let logsRereads: Bool
    let roots: KernelRoots
    /// `--simulated-machine`: the real system bus describes another machine and is not consulted.
    let simulatedMachine: Bool
    private(set) var lowPowerMode: LowPowerMode
    private let lowPowerSetting: LowPowerSetting
    private var platformLowPower = false
    private var profilesLowPower = false
    private var power = PowerState.mains
    private var supplies: [PowerSupply] = []
    private var thermal = ThermalAssessment(state: .nominal, decidingZone: nil)
    private var network = true
    private(set) var conditions = Conditions()
    private(set) var gpus: [GPUSummary] = []
    private var sourceStates: [String: InputSource] = [:]
    var onChange: ((Conditions) -> Void)?
    /// The per-user agent's desktop notifications, for `status` (set in user mode only).
    var notificationsText: (() -> String)?

    private var uevents: UeventMonitor?
    private var thermalEvents: ThermalEventMonitor?
    private var routes: RouteMonitor?
    private var pressure: PressureMonitor?
    private var profiles: PowerProfilesMonitor?
    /// The one connection logind, NetworkManager and power-profiles-daemon are read through;
    /// nil when the system bus is not consulted (a simulated machine without `--system-bus`).
    private var systemBus: SystemBus?
    private let meteredNetwork = MeteredNetworkInput()
    /// logind: the machine about to sleep, the user's presence, and the inhibitor locks the
    /// scheduler wants.
    let logind: LogindInput
    /// `WakeSystem=`: the alarm armed for the next slot.
    let wake = WakeAlarmFollower()
    /// `--system-bus`: the bus every bus input is read from (nil: the system bus).
    private let systemBusAddress: String?
    private var debounce: TimerToken?
    private var coalescer = HintCoalescer<Hint>()
    private let startedAt = MonotonicInstant.now()
    private var thermalSampler: TimerToken?
    private var busy = false
    /// Set once `start` has read every input and named every source: changes before it are
    /// part of the first report, and bus changes are logged only after it.
    private var started = false
    /// The system bus's state last logged (its retries repeat it).
    private var loggedBusSource: InputSource?
    /// sysfs re-reads so far (the uevent-flood benchmark bounds them).
    private(set) var rereads = 0

    enum Hint: Hashable, Sendable { case power, thermal, gpu }

    init(loop: EventLoop, log: Logger, roots: KernelRoots, stateDirectory: String, settings: AgentSettings,
         logsRereads: Bool, simulatedMachine: Bool, systemBusAddress: String? = nil, sessionsOfUser: UInt32? = nil) {
        self.systemBusAddress = systemBusAddress
        logind = LogindInput(scope: sessionsOfUser.map { .user($0) } ?? .seat)
        self.loop = loop
        self.log = log
        self.roots = roots
        self.settings = settings
        self.logsRereads = logsRereads
        self.simulatedMachine = simulatedMachine
        lowPowerSetting = LowPowerSetting(stateDirectory: stateDirectory)
        lowPowerMode = lowPowerSetting.load()
    }

    // MARK: start

    /// Reads everything once and starts the event sources; a missing source is reported once
    /// (log and `status`) and never stops the agent.
    func start() {
        readPower()
        readThermal()
        readPlatformProfile()
        readGPUs()
        startUevents()
        startThermalEvents()
        startRoutes()
        startPressure()
        // --system-bus names the bus to read, also on a simulated machine (tests' private bus).
        if !simulatedMachine || systemBusAddress != nil {
            let bus = SystemBus(loop: loop, address: systemBusAddress.map { .address($0) } ?? .system)
            bus.onStatusChange = { [unowned self] _ in self.busStatusChanged() }
            systemBus = bus
        }
        startPowerProfiles()
        meteredNetwork.start(loop: loop, systemBus: systemBus,
                             log: { [log] in log.notice($0) }, onChange: { [unowned self] in self.recompute() })
        wake.start(loop: loop, log: { [log] in log.notice($0) })
        logind.start(loop: loop, systemBus: systemBus,
                    log: { [log] in log.notice($0) }, onChange: { [unowned self] in self.recompute() })
        started = true
        reportInitial()
        for source in sources where source.state != .live {
            log.notice("inputs: \(source.name) \(source.state)\(source.detail.map { ": \($0)" } ?? "")")
        }
        loggedBusSource = systemBus.map(busSource)
    }

    private func startUevents() {
        do {
            uevents = try UeventMonitor(loop: loop, subsystems: ["power_supply", "thermal", "drm"]) { [unowned self] event in
                switch event {
                case .uevent(let uevent):
                    switch uevent.subsystem {
                    case "thermal": self.hint(.thermal)
                    case "drm": self.hint(.gpu)  // a GPU added or removed (an eGPU, a driver bound)
                    default: self.hint(.power)
                    }
                case .resync:
                    self.hint(.power)
                    self.hint(.thermal)
                    self.hint(.gpu)
                }
            }
            setSource("uevent", .live, "power_supply, thermal and drm uevents")
        } catch {
            setSource("uevent", .unavailable, "\(error); power and GPUs are read at start and on SIGHUP only")
        }
    }

    private func startThermalEvents() {
        do {
            switch try ThermalEventMonitor.open(loop: loop, handler: { [unowned self] _ in self.hint(.thermal) }) {
            case .opened(let monitor):
                thermalEvents = monitor
                setSource("thermal-netlink", .live, "trip crossings; zones sampled while work runs")
            case .unavailable(let reason):
                setSource("thermal-netlink", .sampled, "\(reason); zones sampled while work runs")
            }
        } catch {
            setSource("thermal-netlink", .sampled, "\(error); zones sampled while work runs")
        }
    }

    private func startRoutes() {
        do {
            let monitor = try RouteMonitor(loop: loop) { [unowned self] hasRoute in
                self.network = hasRoute
                self.recompute()
            }
            routes = monitor
            // Read before the first decision: until its dump is answered the monitor knows no
            // route, and the agent used to start saying "network down" on a connected machine.
            if monitor.synchronize(within: .seconds(1)) {
                network = monitor.hasDefaultRoute
            } else {
                network = true
                log.notice("inputs: rtnetlink has not answered the route dump within 1 s: network assumed up until it does")
            }
            setSource("rtnetlink", .live, "default route")
        } catch {
            network = true
            setSource("rtnetlink", .unavailable, "\(error); network assumed up")
        }
    }

    /// Memory pressure always; CPU pressure only while some job has `RequiresIdle=yes`
    /// (``setIdleNeeded(_:)``).
    private func startPressure() {
        let monitor = PressureMonitor(roots: roots, loop: loop)
        monitor.onMemoryPressureChange = { [unowned self] _ in self.recompute() }
        monitor.onCPUBusyChange = { [unowned self] _ in self.recompute() }
        monitor.start()
        pressure = monitor
        let watch = monitor.memory
        switch watch.source {
        case .trigger: setSource("psi", .live, "PSI triggers")
        case .sampled: setSource("psi", .sampled, watch.sourceDetail)
        case .unavailable: setSource("psi", .unavailable, watch.sourceDetail)
        }
    }

    private func startPowerProfiles() {
        guard let systemBus else {
            setSource("power-profiles", .unavailable, "not consulted on a simulated machine")
            return
        }
        let monitor = PowerProfilesMonitor(loop: loop, systemBus: systemBus) { [unowned self] profile in
            self.profilesLowPower = PowerProfilesMonitor.isLowPower(profile)
            self.recompute()
        }
        monitor.onStatusChange = { [unowned self] status in self.profilesStatus(status) }
        profilesStatus(monitor.start())
        profiles = monitor
    }

    private func profilesStatus(_ status: PowerProfilesMonitor.Status) {
        if case .unavailable(let reason) = status {
            setSource("power-profiles", .unavailable, reason)
        } else {
            setSource("power-profiles", .live, status.description)
        }
    }

    /// The system bus connected, was lost or came back: said in the log (the inputs say what it
    /// means for each of them).
    private func busStatusChanged() {
        guard started, let systemBus else { return }
        let source = busSource(systemBus)
        guard source != loggedBusSource else { return }
        loggedBusSource = source
        log.notice("inputs: system-bus \(source.state): \(source.detail ?? "")")
    }

    private func busSource(_ bus: SystemBus) -> InputSource {
        switch bus.status {
        case .connected, .connecting, .stopped:
            return InputSource(name: InputSource.systemBusName, state: .live, detail: bus.summary)
        case .unavailable, .lost, .reconnecting:
            return InputSource(name: InputSource.systemBusName, state: .unavailable, detail: bus.summary)
        }
    }

    // MARK: events

    /// A uevent is a hint to re-read sysfs; `HintCoalescer` decides when (at once for a real
    /// change, coalesced while hints change nothing).
    private func hint(_ kind: Hint) {
        carryOut(coalescer.hint(kind, now: sinceStart))
    }

    private func carryOut(_ read: HintCoalescer<Hint>.Read?) {
        guard let read else { return }
        coalescer.readFinished(changed: reread(read.kinds))
        if let token = debounce { loop.cancel(token) }
        debounce = loop.schedule(at: startedAt + read.windowEndsAt) { [unowned self] in
            self.debounce = nil
            self.carryOut(self.coalescer.windowClosed(now: self.sinceStart))
        }
    }

    private var sinceStart: Duration { startedAt.duration(to: loop.now) }

    /// Re-reads what the hints name; returns whether a reading the policy uses changed.
    @discardableResult
    private func reread(_ kinds: Set<Hint>) -> Bool {
        rereads += 1
        if logsRereads {
            // Benchmarks count re-reads under a uevent flood.
            log.info("inputs: sysfs re-read \(rereads)")
        }
        let before = (power, thermal.state, platformLowPower, gpus)
        if kinds.contains(.power) {
            readPower()
            readPlatformProfile()
        }
        if kinds.contains(.thermal) { readThermal() }
        if kinds.contains(.gpu) { readGPUs() }
        recompute()
        return before != (power, thermal.state, platformLowPower, gpus)
    }

    private func readGPUs() {
        gpus = GPUProbe(roots: roots).probe().map { GPUSummary(name: $0.name, detail: $0.driver ?? $0.path) }
    }

    /// SIGHUP: re-read every input.
    func rereadEverything() {
        reread([.power, .thermal, .gpu])
        pressure?.refresh()
        routes?.resync()
        meteredNetwork.reread()
        recompute()
    }

    /// Some job has `RequiresIdle=yes`: watch CPU pressure (PSI trigger) while so.
    func setIdleNeeded(_ value: Bool) {
        guard let pressure, pressure.watchesCPU != value else { return }
        pressure.watchesCPU = value
        recompute()
    }

    /// The scheduler has work running or due: sample thermal zones (and sampled PSI) while so.
    func setBusy(_ value: Bool) {
        guard value != busy else { return }
        busy = value
        pressure?.wantsQuietSamples = value
        if value {
            // A reading younger than a sample's interval stands (short runs one after another
            // would otherwise list the thermal zones at every start).
            if let readAt = thermalReadAt, loop.now < readAt + Self.thermalSampleInterval {
                scheduleThermalSample(after: loop.now.duration(to: readAt + Self.thermalSampleInterval))
            } else {
                readSampled()
                recompute()
                scheduleThermalSample()
            }
        } else if let token = thermalSampler {
            loop.cancel(token)
            thermalSampler = nil
        }
    }

    /// Before the scheduler decides: unless they are being sampled and were read within a
    /// sample's interval, the zones and the platform profile are read again, so that a launch
    /// sees them as they are (docs/agentd.md: sampled when work becomes due), not as they were
    /// when the agent was last busy. A change reaches the scheduler first.
    func freshenSampledInputs() {
        guard started else { return }
        if busy, let readAt = thermalReadAt, loop.now < readAt + Self.thermalSampleInterval { return }
        readSampled()
        recompute()
    }

    /// What no kernel event announces reliably: the zones creeping toward a trip, and the
    /// platform profile (the kernel signals its change with sysfs_notify, not a uevent).
    private func readSampled() {
        readThermal()
        readPlatformProfile()
        // PSI without a trigger (no kernel events for it) is sampled too.
        if let pressure, pressure.isSampled { pressure.refresh() }
    }

    private func scheduleThermalSample(after delay: Duration = ConditionMonitor.thermalSampleInterval) {
        thermalSampler = loop.schedule(after: delay) { [unowned self] in
            self.thermalSampler = nil
            guard self.busy else { return }
            self.readSampled()
            self.recompute()
            self.scheduleThermalSample()
        }
    }

    // MARK: readings

    private func readPower() {
        let reader = PowerSupplyReader(roots: roots)
        supplies = reader.readAll()
        power = PowerState(supplies: supplies)
    }

    private func readThermal() {
        thermal = ThermalZoneReader(roots: roots).assessment(settings: settings)
        thermalReadAt = loop.now
    }

    /// When the thermal zones were last read.
    private var thermalReadAt: MonotonicInstant?

    private func readPlatformProfile() {
        platformLowPower = PlatformProfileReader(roots: roots).isLowPower()
    }

    private func setSource(_ name: String, _ state: InputSourceState, _ detail: String?) {
        sourceStates[name] = InputSource(name: name, state: state, detail: detail)
    }

    var sources: [InputSource] {
        let kernel = ["uevent", "thermal-netlink", "rtnetlink", "psi"].compactMap { sourceStates[$0] }
        let bus = [sourceStates["power-profiles"], meteredNetwork.source, logind.source].compactMap { $0 }
        guard let systemBus else { return kernel + bus }
        return kernel + [busSource(systemBus)] + bus.map { source in
            // While the bus is away, each input it feeds says when it is tried again.
            guard let note = systemBus.reconnectNote, source.state != .live else { return source }
            return InputSource(name: source.name, state: source.state, detail: (source.detail ?? "") + "; " + note)
        }
    }

    // MARK: conditions

    /// `agentctl lowpower on|off|auto`.
    func setLowPowerMode(_ mode: LowPowerMode) -> Bool {
        lowPowerMode = mode
        let saved = lowPowerSetting.save(mode)
        recompute()
        return saved
    }

    /// Thresholds in agentd.conf changed.
    func settingsChanged(_ settings: AgentSettings) {
        self.settings = settings
        readThermal()
        recompute()
    }

    /// Derives `Conditions` from the latest readings and reports a change (with a log line).
    /// Nothing before `start` has read every input: its own call reports them all at once.
    func recompute() {
        guard started else { return }
        let next = readings()
        guard next != conditions else { return }
        let old = conditions
        conditions = next
        log.notice("inputs: \(describeChange(from: old, to: next))")
        onChange?(next)
    }

    /// The first line says where the agent starts from, not how that differs from defaults.
    private func reportInitial() {
        let next = readings()
        log.notice("inputs: \(describe(next))")
        let changed = next != conditions
        conditions = next
        if changed { onChange?(next) }
    }

    /// `Conditions` from the latest readings.
    private func readings() -> Conditions {
        var next = Conditions(
            power: power, lowPower: lowPowerMode.resolve(detected: platformLowPower || profilesLowPower),
            thermal: thermal.state, network: network, metered: meteredNetwork.metering,
            memoryPressure: pressure?.memoryPressure ?? false, cpuBusy: pressure?.cpuBusy ?? false,
            resources: gpus.isEmpty ? [] : ["gpu"])
        next.sleeping = logind.sleeping
        next.presence = logind.presence
        return next
    }

    /// Every input that matters, for the first line.
    private func describe(_ state: Conditions) -> String {
        var parts = [powerText]
        if state.lowPower { parts.append("low-power mode on") }
        parts.append("thermal \(thermal)")
        parts.append(state.network ? "network up" : "network down (no default route)")
        parts.append(meteredNetwork.changeText)
        if state.memoryPressure { parts.append("memory pressure") }
        if state.cpuBusy { parts.append("cpu busy") }
        if !state.resources.isEmpty { parts.append("resources \(state.resources.sorted())") }
        if state.presence != .unknown { parts.append("user " + logind.presenceText(state.presence)) }
        return parts.joined(separator: ", ")
    }

    private func describeChange(from old: Conditions, to new: Conditions) -> String {
        var parts: [String] = []
        if old.power != new.power { parts.append(powerText) }
        if old.lowPower != new.lowPower { parts.append("low-power mode \(new.lowPower ? "on" : "off")") }
        if old.thermal != new.thermal { parts.append("thermal \(thermal)") }
        if old.network != new.network { parts.append(new.network ? "network up" : "network down (no default route)") }
        if old.metered != new.metered { parts.append(meteredNetwork.changeText) }
        if old.memoryPressure != new.memoryPressure { parts.append(new.memoryPressure ? "memory pressure" : "memory pressure over") }
        if old.cpuBusy != new.cpuBusy { parts.append(new.cpuBusy ? "cpu busy" : "cpu idle") }
        if old.resources != new.resources { parts.append("resources \(new.resources.sorted())") }
        if old.sleeping != new.sleeping { parts.append(new.sleeping ? "about to sleep" : "awake") }
        if old.presence != new.presence { parts.append("user " + logind.presenceText(new.presence)) }
        return parts.joined(separator: ", ")
    }

    private var powerText: String {
        let source = power.externalPower ? "on AC" : "on battery"
        guard let battery = power.battery else { return source }
        return "\(source), battery \(battery.percent)% (\(batteryStatus ?? "unknown"))"
    }

    /// The system batteries' own status word, for people: as the kernel says it, so a battery
    /// that drains on AC (a weak charger, a dock) shows as discharging, though the policy counts
    /// the machine as on external power.
    private var batteryStatus: String? {
        guard let battery = power.battery else { return nil }
        if battery.discharging { return "discharging" }
        let statuses = supplies.filter { $0.type == .battery && $0.scope != .device }.map(\.status)
        if statuses.contains(.discharging) { return "discharging" }
        if statuses.contains(.charging) { return "charging" }
        if !statuses.isEmpty, statuses.allSatisfy({ $0 == .full }) { return "full" }
        return "not charging"
    }

    /// The inputs at a glance, for `status` and `resources`.
    var inputs: MachineInputs {
        let zone = thermal.decidingZone
        let origin: String
        switch lowPowerMode {
        case .auto:
            origin = platformLowPower ? "auto (platform_profile)" : profilesLowPower ? "auto (power-profiles-daemon)" : "auto"
        case .on, .off:
            origin = "\(lowPowerMode.rawValue) (agentctl)"
        }
        return MachineInputs(
            power: .known(power.externalPower ? .ac : .battery), batteryPercent: power.battery?.percent,
            batteryStatus: batteryStatus, lowPower: conditions.lowPower, lowPowerSource: origin,
            thermal: .known(conditions.thermal), hottestZone: zone?.label,
            hottestCelsius: zone.map { Double($0.temperatureMilli) / 1000 },
            marginCelsius: zone.map { Double($0.marginC) }, marginTrip: zone.map { "\($0.referenceTrip)" },
            network: conditions.network, metered: .known(conditions.metered),
            meteredSource: meteredNetwork.sourceText, memoryPressure: conditions.memoryPressure,
            cpuBusy: conditions.cpuBusy, sources: sources,
            sleep: conditions.sleeping ? "about to sleep" : "awake", inhibitors: logind.heldInhibitors,
            presence: logind.presenceText(conditions.presence), idleSource: logind.idleSourceText,
            wakeAlarm: wake.statusText, wakeAlarmAt: wake.armedAt, notifications: notificationsText?())
    }
}
