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
/// `PowerProfilesMonitor` does: `start` only connects the socket (non-blocking, a unix socket);
/// the match rules (`NameOwnerChanged` for the name, `PropertiesChanged` on the path) go out
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
public final class NetworkMeteredMonitor {
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
    private let bus: BusAddress
    private let delivery: PropertyDelivery<UInt32, Status>
    private var connection: BusConnection?
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

    /// A monitor for the given bus (the system bus by default), reporting to `onChange`.
    /// Nothing happens until `start()`.
    public init(loop: EventLoop, bus: BusAddress = .system, onChange: @escaping (UInt32?) -> Void) {
        self.loop = loop
        self.bus = bus
        delivery = PropertyDelivery(loop: loop, stopped: .stopped, onValue: onChange)
    }

    deinit {
        connection?.close()
    }

    /// Connects and starts watching; returns the status at once (`.connecting` on success,
    /// `.unavailable(…)` when there is no bus to connect to, which leaves the monitor stopped
    /// for good: call `start` again to retry). Does nothing but return the status when running.
    @discardableResult
    public func start() -> Status {
        if connection != nil { return status }
        delivery.restart()
        owner = nil
        ownerKnown = false
        pendingRead = nil
        let opened: BusConnection
        do {
            opened = try BusConnection(address: bus, loop: loop)
        } catch {
            setStatus(.unavailable("no D-Bus system bus (\(error))"))
            return status
        }
        connection = opened
        opened.onDisconnect = { [weak self] reason in self?.lost("bus connection lost (\(reason))") }
        do {
            try watchBus(opened)
            try askOwner(on: opened)
        } catch {
            opened.close()
            connection = nil
            setStatus(.unavailable("cannot watch the bus (\(error))"))
            return status
        }
        setStatus(.connecting(bus: bus.description))
        return status
    }

    /// Closes the connection; no callback is called after this.
    public func stop() {
        delivery.stop(.stopped)
        connection?.close()
        connection = nil
        pendingRead = nil
    }

    /// Reads `Metered` again (SIGHUP); nothing while NetworkManager is not on the bus.
    public func reread() {
        readMetered()
    }

    // MARK: - Bus traffic

    private func watchBus(_ connection: BusConnection) throws(BusError) {
        let installed: (BusError?) -> Void = { [weak self] error in
            guard let self, let error else { return }
            self.lost("the bus refused a match rule (\(error))")
        }
        try connection.watchOwner(of: Self.service, onInstalled: installed) { [weak self] owner in
            self?.ownerChanged(to: owner)
        }
        try connection.watchProperties(path: Self.path, interface: Self.interface, onInstalled: installed) {
            [weak self] message in self?.propertiesChanged(message)
        }
    }

    private func askOwner(on connection: BusConnection) throws(BusError) {
        try connection.askOwner(of: Self.service, timeout: Self.callTimeout) { [weak self] owner in
            self?.ownerChanged(to: owner)
        }
    }

    private func ownerChanged(to newOwner: String?) {
        if ownerKnown, newOwner == owner { return }
        ownerKnown = true
        owner = newOwner
        if let pendingRead { connection?.cancel(pendingRead) }
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
            if let pendingRead { connection?.cancel(pendingRead) }
            pendingRead = nil
            setMetered(value)
        } else if change.invalidated.contains(Self.property) {
            readMetered()
        }
    }

    /// Reads Metered from NetworkManager's unique name (never activates it).
    private func readMetered() {
        guard let connection, let owner else { return }
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

    private func lost(_ reason: String) {
        connection?.close()
        connection = nil
        pendingRead = nil
        owner = nil
        setStatus(.unavailable(reason))
        setMetered(nil)
    }

    // MARK: - Reporting

    private func setStatus(_ new: Status) { delivery.setStatus(new) }

    private func setMetered(_ value: UInt32?) { delivery.setValue(value) }
}
