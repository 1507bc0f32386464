// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem

/// The metered-network input (DESIGN §6, `RequiresNetwork=unmetered`): NetworkManager's `Metered`
/// through `NetworkMeteredMonitor`, turned into `NetworkMetering` with the source it came from.
///
/// Without NetworkManager — no system bus, nothing owning `org.freedesktop.NetworkManager`, or a
/// simulated machine (`--simulated-machine`) without `--system-bus` — every network counts as unmetered (`no`), as
/// DESIGN §6 says, and the reason is the source `status` shows; it is logged once each time
/// the agent finds itself in that state. Loop-thread only.
final class MeteredNetworkInput {
    /// The metering the policy reads.
    private(set) var metering: NetworkMetering = .no
    /// Where `metering` comes from, for `status` (`NetworkManager: guess-yes`).
    private(set) var sourceText = "not started"
    /// The `networkmanager` line of `status`'s sources.
    private(set) var source = InputSource(name: "networkmanager", state: .unavailable, detail: "not started")

    private var monitor: NetworkMeteredMonitor?
    private var log: (String) -> Void = { _ in }
    private var onChange: () -> Void = {}
    private var started = false

    /// Starts following NetworkManager through `systemBus` (nil: not consulted, a simulated
    /// machine, which leaves every network unmetered). `onChange` runs after `metering` or the
    /// source changed; `log` gets the lines people read.
    func start(loop: EventLoop, systemBus: SystemBus?, log: @escaping (String) -> Void,
               onChange: @escaping () -> Void) {
        self.log = log
        guard let systemBus else {
            metering = .no
            sourceText = "not consulted on a simulated machine"
            source = InputSource(name: "networkmanager", state: .unavailable, detail: sourceText)
            return
        }
        // Both callbacks read the monitor's current status and value, so the two never disagree.
        let monitor = NetworkMeteredMonitor(loop: loop, systemBus: systemBus) { [unowned self] _ in
            self.update()
        }
        monitor.onStatusChange = { [unowned self] _ in self.update() }
        self.monitor = monitor
        // ConditionMonitor's start-up line names a source that is not live; later changes are
        // logged here, and reported once `start` has returned.
        monitor.start()
        update()
        self.onChange = onChange
        started = true
    }

    /// SIGHUP: read `Metered` again.
    func reread() {
        monitor?.reread()
    }

    /// `metered no (NetworkManager: no)`, for the inputs change log line.
    var changeText: String { "metered \(metering.rawValue) (\(sourceText))" }

    private func update() {
        guard let monitor else { return }
        let before = (metering, sourceText, source)
        let value = monitor.metered
        let status = monitor.status
        switch status {
        case .stopped, .connecting:
            // Until NetworkManager (or the bus) has answered, unmetered work waits.
            metering = .checking
            sourceText = "NetworkManager: not read yet"
            source = InputSource(name: "networkmanager", state: .live, detail: status.description)
        case .watching(networkManager: true):
            metering = value.map(NetworkMetering.init(networkManagerValue:)) ?? .unknown
            sourceText = "NetworkManager: " + (value.map(NetworkMetering.networkManagerName) ?? "no answer")
            source = InputSource(name: "networkmanager", state: .live, detail: status.description)
        case .watching(networkManager: false):
            metering = .no
            sourceText = "no NetworkManager on the system bus"
            source = InputSource(name: "networkmanager", state: .unavailable, detail: sourceText)
        case .unavailable(let reason):
            metering = .no
            sourceText = "no system bus"
            source = InputSource(name: "networkmanager", state: .unavailable, detail: reason)
        }
        guard before != (metering, sourceText, source) else { return }
        if started, source.state != .live, before.2 != source {
            log("inputs: networkmanager unavailable: \(source.detail ?? sourceText); every network counts as unmetered")
        }
        onChange()
    }
}
