// SPDX-License-Identifier: Apache-2.0
/// Follows power-profiles-daemon's active profile over D-Bus: the low-power-mode input of DESIGN
/// §6 on desktops where the profile is chosen in the shell's power menu (GNOME, KDE) rather than
/// through `/sys/firmware/acpi/platform_profile`.
///
/// The daemon is looked for under two names, the first one with an owner winning:
/// `org.freedesktop.UPower.PowerProfiles` at `/org/freedesktop/UPower/PowerProfiles` (0.20 and
/// later, which keep the old name as an alias), then `net.hadess.PowerProfiles` at
/// `/net/hadess/PowerProfiles`, each with the interface of the same name as the service and its
/// `ActiveProfile` string property (`power-saver`, `balanced`, `performance`).
///
/// Everything runs on the `EventLoop` with no thread and no blocking call, on the connection
/// `SystemBus` shares between the bus monitors (and opens again after the bus came back, when
/// everything below starts over): the match rules (`NameOwnerChanged` for both names, `PropertiesChanged` on both paths) are installed
/// with `AddMatch` asynchronously, then `GetNameOwner` for both names and `Properties.Get` of
/// `ActiveProfile` from the owner are asynchronous calls whose replies arrive through the loop.
/// The matches go out first, so no change between the read and the watch can be missed. A
/// `PropertiesChanged` is believed only from the current owner's unique name. The daemon is never
/// started by the monitor (calls go to the owner's unique name, with auto-start off).
///
/// `onChange` gets the profile, or nil when it is unknown: no daemon owns either name (it is not
/// installed, not running, or just stopped), it answered with an error or a non-string, or the
/// bus connection was lost. It is called on the loop thread, outside D-Bus processing (through
/// `EventLoop.execute`), first once the initial state is known (even when that is nil), then
/// whenever the value changes; changes within one loop iteration are coalesced to the last one.
/// It is never called after `stop()`.
///
/// Loop-thread only, like the `EventLoop` it runs on.
public final class PowerProfilesMonitor: SystemBusClient {
    /// The profile that means low-power mode.
    public static let lowPowerProfile = "power-saver"

    /// Whether a profile reported by the monitor means low-power mode (nil, unknown, does not).
    public static func isLowPower(_ profile: String?) -> Bool { profile == lowPowerProfile }

    /// Where the monitor is.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        /// Not started, or stopped.
        case stopped
        /// Connected to the bus; the first answers have not arrived yet.
        case connecting(bus: String)
        /// Watching the bus; `service` is the name the profile is read from, nil while no
        /// power-profiles-daemon is on the bus (the profile is then nil).
        case watching(service: String?)
        /// No bus to watch: no socket at the address, connection refused or lost, or a match
        /// rule refused. Not an error for the agent: low-power mode then comes from the other
        /// sources (platform_profile, `agentctl lowpower`).
        case unavailable(String)

        public var description: String {
            switch self {
            case .stopped: return "stopped"
            case .connecting(let bus): return "connecting to \(bus)"
            case .watching(let service?): return "watching \(service)"
            case .watching(nil): return "watching: power-profiles-daemon not on the bus"
            case .unavailable(let reason): return "unavailable: \(reason)"
            }
        }

        /// True for `.unavailable`.
        public var isUnavailable: Bool {
            if case .unavailable = self { return true }
            return false
        }
    }

    struct Service {
        let name: String
        let path: String
        let interface: String
    }

    /// In order of preference.
    static let services: [Service] = [
        Service(name: "org.freedesktop.UPower.PowerProfiles", path: "/org/freedesktop/UPower/PowerProfiles",
                interface: "org.freedesktop.UPower.PowerProfiles"),
        Service(name: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles",
                interface: "net.hadess.PowerProfiles"),
    ]
    static let property = "ActiveProfile"
    /// Bounds each method call; a call that times out counts as "no answer" (profile unknown).
    static let callTimeout: Duration = .seconds(10)

    private let loop: EventLoop
    private let systemBus: SystemBus
    private let delivery: PropertyDelivery<String, Status>
    private var lease: BusLease?
    private var attached = false

    /// Per service (index into `services`): whether its owner is known yet, and its unique name.
    private var ownerKnown: [Bool] = []
    private var owners: [String?] = []
    /// The service the profile is read from, and the owner it was read from.
    private var active: Int?
    private var activeOwner: String?
    private var decided = false
    private var pendingRead: BusConnection.Token?

    /// The last profile read, nil while unknown.
    public var profile: String? { delivery.value }

    /// Whether the current profile means low-power mode.
    public var isLowPower: Bool { Self.isLowPower(profile) }

    /// Where the monitor is; see `Status`.
    public var status: Status { delivery.status }

    /// Called (on the loop thread, outside D-Bus processing) after `status` changed, for logging.
    public var onStatusChange: ((Status) -> Void)? {
        get { delivery.onStatus }
        set { delivery.onStatus = newValue }
    }

    /// A monitor reading the shared `systemBus`, reporting to `onChange`. Nothing happens until
    /// `start()`.
    public init(loop: EventLoop, systemBus: SystemBus, onChange: @escaping (String?) -> Void) {
        self.loop = loop
        self.systemBus = systemBus
        delivery = PropertyDelivery(loop: loop, stopped: .stopped, onValue: onChange)
    }

    /// A monitor on a bus of its own at `bus` (the system bus by default).
    public convenience init(loop: EventLoop, bus: BusAddress = .system, onChange: @escaping (String?) -> Void) {
        self.init(loop: loop, systemBus: SystemBus(loop: loop, address: bus), onChange: onChange)
    }

    deinit {
        systemBus.detach(ObjectIdentifier(self))
    }

    /// Starts watching through the system bus (connecting it when it is not yet); returns the
    /// status at once (`.connecting` with a connection, `.unavailable(…)` without one: the
    /// system bus reconnects by itself when it had been up). Does nothing but return the status
    /// when started.
    @discardableResult
    public func start() -> Status {
        if attached { return status }
        attached = true
        delivery.restart()
        systemBus.attach(self)
        return status
    }

    /// Leaves the system bus; no callback is called after this.
    public func stop() {
        delivery.stop(.stopped)
        attached = false
        lease = nil
        pendingRead = nil
        systemBus.detach(ObjectIdentifier(self))
    }

    // MARK: - Bus traffic

    private func watchBus(_ connection: BusLease) throws(BusError) {
        let installed: (BusError?) -> Void = { [weak self] error in
            guard let self, let error else { return }
            self.busUnavailable("the bus refused a match rule (\(error))", hadConnection: true)
        }
        for (index, service) in Self.services.enumerated() {
            try connection.watchOwner(of: service.name, onInstalled: installed) { [weak self] owner in
                self?.ownerChanged(index, to: owner)
            }
            try connection.watchProperties(path: service.path, interface: service.interface, onInstalled: installed) {
                [weak self] message in self?.propertiesChanged(message, index: index)
            }
        }
    }

    private func askOwner(_ index: Int, on connection: BusLease) throws(BusError) {
        try connection.askOwner(of: Self.services[index].name, timeout: Self.callTimeout) { [weak self] owner in
            self?.ownerChanged(index, to: owner)
        }
    }

    private func ownerChanged(_ index: Int, to owner: String?) {
        ownerKnown[index] = true
        owners[index] = owner
        reselect()
    }

    private func propertiesChanged(_ message: BusMessage, index: Int) {
        guard index == active, let owner = activeOwner, message.sender == owner,
              message.path == Self.services[index].path,
              let change = try? message.readPropertiesChanged(),
              change.interface == Self.services[index].interface else { return }
        if let value = change.strings[Self.property] {
            if let pendingRead { lease?.cancel(pendingRead) }
            pendingRead = nil
            setProfile(value)
        } else if change.invalidated.contains(Self.property) {
            readProfile()
        }
    }

    /// Picks the preferred service that has an owner, once every more preferred one is known to
    /// have none, and reads its profile when the choice (or its owner) changed.
    private func reselect() {
        var choice: Int?
        for index in Self.services.indices {
            guard ownerKnown[index] else { return }  // still waiting for a preferred name's answer
            if owners[index] != nil {
                choice = index
                break
            }
        }
        let owner = choice.flatMap { owners[$0] }
        if decided, choice == active, owner == activeOwner { return }
        decided = true
        active = choice
        activeOwner = owner
        if let pendingRead { lease?.cancel(pendingRead) }
        pendingRead = nil
        if let choice {
            setStatus(.watching(service: Self.services[choice].name))
            readProfile()
        } else {
            setStatus(.watching(service: nil))
            setProfile(nil)
        }
    }

    /// Reads ActiveProfile from the active service's owner (its unique name: never activates).
    private func readProfile() {
        guard let connection = lease, let index = active, let owner = activeOwner else { return }
        if let pendingRead { connection.cancel(pendingRead) }
        let service = Self.services[index]
        do {
            pendingRead = try connection.readProperty(Self.property, of: service.interface, at: service.path,
                                                      from: owner, timeout: Self.callTimeout) { [weak self] reply in
                guard let self else { return }
                self.pendingRead = nil
                guard reply.error == nil, let value = try? reply.readVariantString() else {
                    self.setProfile(nil)
                    return
                }
                self.setProfile(value)
            }
        } catch {
            pendingRead = nil
            setProfile(nil)
        }
    }

    // MARK: - The shared connection

    var busClientName: String { "power-profiles" }

    func busConnected(_ lease: BusLease) throws {
        self.lease = lease
        ownerKnown = Array(repeating: false, count: Self.services.count)
        owners = Array(repeating: nil, count: Self.services.count)
        active = nil
        activeOwner = nil
        decided = false
        pendingRead = nil
        try watchBus(lease)
        for index in Self.services.indices { try askOwner(index, on: lease) }
        setStatus(.connecting(bus: systemBus.address.description))
    }

    func busUnavailable(_ reason: String, hadConnection: Bool) {
        lease?.end()
        lease = nil
        pendingRead = nil
        active = nil
        activeOwner = nil
        setStatus(.unavailable(reason))
        if hadConnection { setProfile(nil) }
    }

    // MARK: - Reporting

    private func setStatus(_ new: Status) { delivery.setStatus(new) }

    private func setProfile(_ value: String?) { delivery.setValue(value) }
}
