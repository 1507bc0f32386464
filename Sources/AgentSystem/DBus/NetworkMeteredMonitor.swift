// SPDX-License-Identifier: Apache-2.0
/// Follows NetworkManager's `Metered` property over D-Bus: the metered-network input of DESIGN
/// §6, for `RequiresNetwork=unmetered`.
///
/// The property read is the global one, `Metered` (`u`, an `NMMetered`: 0 unknown, 1 yes, 2 no,
/// 3 guess-yes, 4 guess-no) of interface `org.freedesktop.NetworkManager` on
/// `/org/freedesktop/NetworkManager` of the service `org.freedesktop.NetworkManager`: it
/// reflects the primary connection, the one the default route goes through.
///
/// Everything runs on the `EventLoop` with no thread and no blocking call, as
/// `PowerProfilesMonitor` does, on the connection `SystemBus` shares between the bus monitors
/// (and opens again after the bus came back, when everything below starts over): the match rules (`NameOwnerChanged` for the name, `PropertiesChanged` on the path) go out
/// first and asynchronously, then `GetNameOwner` and `Properties.Get` of `Metered` from the owner
/// are asynchronous calls whose replies arrive through the loop, so no change between the read
/// and the watch is missed. A `PropertiesChanged` is believed only from the current owner's
/// unique name, and NetworkManager is never started by the monitor (calls go to the owner's
/// unique name, with auto-start off).
///
/// `onChange` gets the `Metered` value, or nil when there is none: NetworkManager is not on the
/// bus (not installed, not running, just stopped), it answered with an error or another type,
/// or the bus connection was lost. It is called on the loop thread, outside D-Bus processing
/// (through `EventLoop.execute`), first once the initial state is known (even when that is nil),
/// then whenever the value changes; changes within one loop iteration are coalesced to the last
/// one. It is never called after `stop()`.
///
/// Loop-thread only, like the `EventLoop` it runs on.
public final class NetworkMeteredMonitor: SystemBusClient {
    /// Where the monitor is.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        /// Not started, or stopped.
        case stopped
        /// Connected to the bus; the first answers have not arrived yet.
        case connecting(bus: String)
        /// Watching the bus; `networkManager` says whether NetworkManager owns its name. It turns
        /// true once `Metered` has been read from the new owner (or the read failed), so a value
        /// not read yet is never taken for NetworkManager's answer.
        case watching(networkManager: Bool)
        /// No bus to watch: no socket at the address, connection refused or lost, or a match
        /// rule refused. Not an error for the agent: every network then counts as unmetered.
        case unavailable(String)

        public var description: String {
            switch self {
            case .stopped: return "stopped"
            case .connecting(let bus): return "connecting to \(bus)"
            case .watching(true): return "watching NetworkManager"
            case .watching(false): return "NetworkManager not on the system bus"
            case .unavailable(let reason): return "unavailable: \(reason)"
            }
        }

        /// True for `.unavailable`.
        public var isUnavailable: Bool {
            if case .unavailable = self { return true }
            return false
        }
    }

    static let service = "org.freedesktop.NetworkManager"
    static let path = "/org/freedesktop/NetworkManager"
    static let interface = "org.freedesktop.NetworkManager"
    static let property = "Metered"
    /// Bounds each method call; a call that times out counts as "no answer" (value nil).
    static let callTimeout: Duration = .seconds(10)

    private let loop: EventLoop
    private let systemBus: SystemBus
    private let delivery: PropertyDelivery<UInt32, Status>
    private var lease: BusLease?
    private var attached = false
    /// NetworkManager's unique name while it owns the service name; `ownerKnown` once asked.
    private var owner: String?
    private var ownerKnown = false
    private var pendingRead: BusConnection.Token?

    /// The last `Metered` value read, nil while there is none. Current when `onStatusChange`
    /// runs (a listener may read it there rather than wait for `onChange`).
    public var metered: UInt32? { delivery.value }

    /// Where the monitor is; see `Status`.
    public var status: Status { delivery.status }

    /// Called (on the loop thread, outside D-Bus processing) after `status` changed, for logging.
    public var onStatusChange: ((Status) -> Void)? {
        get { delivery.onStatus }
        set { delivery.onStatus = newValue }
    }

    /// A monitor reading the shared `systemBus`, reporting to `onChange`. Nothing happens until
    /// `start()`.
    public init(loop: EventLoop, systemBus: SystemBus, onChange: @escaping (UInt32?) -> Void) {
        self.loop = loop
        self.systemBus = systemBus
        delivery = PropertyDelivery(loop: loop, stopped: .stopped, onValue: onChange)
    }

    /// A monitor on a bus of its own at `bus` (the system bus by default).
    public convenience init(loop: EventLoop, bus: BusAddress = .system, onChange: @escaping (UInt32?) -> Void) {
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

    /// Reads `Metered` again (SIGHUP); nothing while NetworkManager is not on the bus.
    public func reread() {
        readMetered()
    }

    // MARK: - Bus traffic

    private func watchBus(_ connection: BusLease) throws(BusError) {
        let installed: (BusError?) -> Void = { [weak self] error in
            guard let self, let error else { return }
            self.busUnavailable("the bus refused a match rule (\(error))", hadConnection: true)
        }
        try connection.watchOwner(of: Self.service, onInstalled: installed) { [weak self] owner in
            self?.ownerChanged(to: owner)
        }
        try connection.watchProperties(path: Self.path, interface: Self.interface, onInstalled: installed) {
            [weak self] message in self?.propertiesChanged(message)
        }
    }

    private func askOwner(on connection: BusLease) throws(BusError) {
        try connection.askOwner(of: Self.service, timeout: Self.callTimeout) { [weak self] owner in
            self?.ownerChanged(to: owner)
        }
    }

    private func ownerChanged(to newOwner: String?) {
        if ownerKnown, newOwner == owner { return }
        ownerKnown = true
        owner = newOwner
        if let pendingRead { lease?.cancel(pendingRead) }
        pendingRead = nil
        if newOwner != nil {
            // The status follows when the read answers.
            readMetered()
        } else {
            setStatus(.watching(networkManager: false))
            setMetered(nil)
        }
    }

    private func propertiesChanged(_ message: BusMessage) {
        guard let owner, message.sender == owner, message.path == Self.path,
              let change = try? message.readPropertiesChanged(),
              change.interface == Self.interface else { return }
        if let value = change.uint32s[Self.property] {
            if let pendingRead { lease?.cancel(pendingRead) }
            pendingRead = nil
            setMetered(value)
        } else if change.invalidated.contains(Self.property) {
            readMetered()
        }
    }

    /// Reads Metered from NetworkManager's unique name (never activates it).
    private func readMetered() {
        guard let connection = lease, let owner else { return }
        if let pendingRead { connection.cancel(pendingRead) }
        do {
            pendingRead = try connection.readProperty(Self.property, of: Self.interface, at: Self.path, from: owner,
                                                      timeout: Self.callTimeout) { [weak self] reply in
                guard let self else { return }
                self.pendingRead = nil
                let value: UInt32? = reply.error == nil ? try? reply.readVariantUInt32() : nil
                // The value first: a status listener reading `metered` sees the new one.
                self.setMetered(value)
                self.setStatus(.watching(networkManager: true))
            }
        } catch {
            pendingRead = nil
            setMetered(nil)
            setStatus(.watching(networkManager: true))
        }
    }

    // MARK: - The shared connection

    var busClientName: String { "NetworkManager" }

    func busConnected(_ lease: BusLease) throws {
        self.lease = lease
        owner = nil
        ownerKnown = false
        pendingRead = nil
        try watchBus(lease)
        try askOwner(on: lease)
        setStatus(.connecting(bus: systemBus.address.description))
    }

    func busUnavailable(_ reason: String, hadConnection: Bool) {
        lease?.end()
        lease = nil
        pendingRead = nil
        owner = nil
        setStatus(.unavailable(reason))
        if hadConnection { setMetered(nil) }
    }

    // MARK: - Reporting

    private func setStatus(_ new: Status) { delivery.setStatus(new) }

    private func setMetered(_ value: UInt32?) { delivery.setValue(value) }
}
