// SPDX-License-Identifier: Apache-2.0

/// What a reader of the system bus does as the shared connection comes and goes.
protocol SystemBusClient: AnyObject {
    /// A name for `status`: `logind`, `NetworkManager`, `power-profiles`.
    var busClientName: String { get }
    /// A connection is open (the first one, or a new one after the bus came back): install the
    /// matches, ask for owners and read properties through `lease`, from scratch. A throw (the
    /// connection refused a call) ends the lease and makes this client unavailable.
    func busConnected(_ lease: BusLease) throws
    /// There is no connection (none to be had, or it was lost): forget what was read.
    /// `hadConnection` says whether this client was on one until now.
    func busUnavailable(_ reason: String, hadConnection: Bool)
}

/// The agent's one connection to the system bus (DESIGN §6), shared by every monitor that reads
/// it — systemd-logind, NetworkManager, power-profiles-daemon — instead of one connection each.
///
/// It connects (a non-blocking `connect(2)`, as `BusConnection`), hands each attached monitor a
/// `BusLease` to install its matches and make its calls on, and asks the bus for its id to know
/// the connection works. When the bus goes away (dbus-daemon restarted or upgraded) every monitor
/// is told, and the connection is opened again after 1 s, 2 s, 4 s … at most a minute apart; each
/// new connection is handed to every monitor again, which re-installs its matches and re-reads its
/// properties. A bus that was never there is not retried: nothing is polled for a bus a machine
/// does not have. The backoff starts from 1 s again once a connection has answered, not merely
/// connected, so a bus that accepts the socket but fails every handshake is not hammered.
///
/// The bus is closed when the last monitor leaves. Loop-thread only.
public final class SystemBus {
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        case stopped
        /// The first connection is open; the bus has not answered yet.
        case connecting
        /// The bus answered on the current connection.
        case connected
        /// No bus to be had, and none ever was: not retried.
        case unavailable(String)
        /// The bus went away; another connection is tried after the backoff.
        case lost(String)
        /// A new connection after a loss is open; the bus has not answered yet.
        case reconnecting

        public var description: String {
            switch self {
            case .stopped: return "stopped"
            case .connecting: return "connecting"
            case .connected: return "connected"
            case .unavailable(let reason): return "unavailable: \(reason)"
            case .lost(let reason): return "lost: \(reason)"
            case .reconnecting: return "reconnecting"
            }
        }
    }

    private final class Attachment {
        weak var client: (any SystemBusClient)?
        let name: String
        var lease: BusLease?

        init(client: any SystemBusClient) {
            self.client = client
            name = client.busClientName
        }
    }

    static let longestWait: Duration = .seconds(60)
    static let callTimeout: Duration = .seconds(10)

    /// Where the bus is: `--system-bus`, else the system bus.
    public let address: BusAddress
    private let loop: EventLoop
    private var connection: BusConnection?
    private var attachments: [ObjectIdentifier: Attachment] = [:]
    /// Attachment order, for `status`.
    private var order: [ObjectIdentifier] = []
    private var wasUp = false
    private var attempts = 0
    private var retryTimer: TimerToken?
    private var retryAt: MonotonicInstant?

    public private(set) var status: Status = .stopped
    /// After `status` changed; on the loop thread, outside D-Bus processing.
    public var onStatusChange: ((Status) -> Void)?
    /// Connections opened so far (one, unless the bus went away and came back).
    public private(set) var connectionsOpened = 0

    public init(loop: EventLoop, address: BusAddress = .system) {
        self.loop = loop
        self.address = address
    }

    deinit {
        if let retryTimer { loop.cancel(retryTimer) }
        connection?.close()
    }

    /// Whether the bus went away and is being reconnected (`.lost` or `.reconnecting`).
    public var isReconnecting: Bool {
        switch status {
        case .lost, .reconnecting: return true
        default: return false
        }
    }

    /// What `status` shows: `connected to ADDRESS: one connection for logind, NetworkManager`,
    /// `lost: bus connection lost (…); reconnecting in 4s (attempt 3)`.
    public var summary: String {
        let names = order.compactMap { attachments[$0]?.name }.joined(separator: ", ")
        switch status {
        case .connected:
            return "connected to \(address): one connection for \(names.isEmpty ? "nothing" : names)"
        case .connecting:
            return "connecting to \(address)"
        case .reconnecting:
            return "\(reconnectNote ?? "reconnecting") to \(address)"
        case .lost(let reason):
            return "lost: \(reason)" + (reconnectNote.map { "; \($0)" } ?? "")
        case .unavailable(let reason):
            return reason
        case .stopped:
            return status.description
        }
    }

    /// `reconnecting in 4s (attempt 3)` while the next attempt is due, `reconnecting (attempt 3)`
    /// while it is under way; nil otherwise.
    public var reconnectNote: String? {
        switch status {
        case .lost:
            guard let retryAt else { return nil }
            let left = max(.zero, loop.now.duration(to: retryAt))
            let (whole, fraction) = left.components
            return "reconnecting in \(whole + (fraction > 0 ? 1 : 0))s (attempt \(attempts))"
        case .reconnecting:
            return "reconnecting (attempt \(attempts))"
        default:
            return nil
        }
    }

    /// Connects, unless already connected or trying to.
    public func start() {
        guard status == .stopped else { return }
        connect()
    }

    /// Closes the connection and stops reconnecting; attached monitors are not told.
    public func stop() {
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = nil
        retryAt = nil
        for attachment in attachments.values {
            attachment.lease?.end()
            attachment.lease = nil
        }
        connection?.close()
        connection = nil
        wasUp = false
        attempts = 0
        status = .stopped
    }

    // MARK: - Monitors

    /// Adds a monitor: it is told now (and on every later change) whether there is a connection.
    /// Starts the bus when it is stopped.
    func attach(_ client: any SystemBusClient) {
        let id = ObjectIdentifier(client)
        guard attachments[id] == nil else { return }
        let attachment = Attachment(client: client)
        attachments[id] = attachment
        order.append(id)
        if status == .stopped {
            connect()
        } else if let connection {
            hand(connection, to: attachment)
        } else {
            client.busUnavailable(currentReason, hadConnection: false)
        }
    }

    /// Removes a monitor and everything it registered; the last one to leave closes the bus.
    func detach(_ id: ObjectIdentifier) {
        guard let attachment = attachments.removeValue(forKey: id) else { return }
        order.removeAll { $0 == id }
        attachment.lease?.end()
        attachment.lease = nil
        if attachments.isEmpty { stop() }
    }

    private var currentReason: String {
        switch status {
        case .unavailable(let reason), .lost(let reason): return reason
        default: return "no D-Bus system bus"
        }
    }

    // MARK: - Connecting

    private func connect() {
        let opened: BusConnection
        do {
            opened = try BusConnection(address: address, loop: loop)
        } catch {
            failed("no D-Bus system bus (\(error))")
            return
        }
        connectionsOpened += 1
        connection = opened
        opened.onDisconnect = { [weak self] reason in self?.failed("bus connection lost (\(reason))") }
        do {
            // Any answer from the bus proves the connection (authenticated, Hello answered).
            try opened.call(destination: BusLease.busName, path: BusLease.busPath, interface: BusLease.busName,
                            member: "GetId", timeout: Self.callTimeout) { [weak self, weak opened] reply in
                guard let self, let opened, self.connection === opened, reply.error == nil else { return }
                self.answered()
            }
        } catch {
            opened.close()
            connection = nil
            failed("cannot talk to the bus (\(error))")
            return
        }
        setStatus(wasUp ? .reconnecting : .connecting)
        for id in order {
            guard let attachment = attachments[id] else { continue }
            hand(opened, to: attachment)
        }
    }

    private func hand(_ connection: BusConnection, to attachment: Attachment) {
        guard let client = attachment.client else { return }
        let lease = BusLease(connection: connection)
        attachment.lease = lease
        do {
            try client.busConnected(lease)
        } catch {
            lease.end()
            attachment.lease = nil
            client.busUnavailable("cannot watch the bus (\(error))", hadConnection: false)
        }
    }

    private func answered() {
        wasUp = true
        attempts = 0
        setStatus(.connected)
    }

    /// No connection: every monitor is told; the bus is tried again after the backoff if it had
    /// been up.
    private func failed(_ reason: String) {
        connection?.close()
        connection = nil
        for id in order {
            guard let attachment = attachments[id] else { continue }
            let had = attachment.lease != nil
            attachment.lease?.end()
            attachment.lease = nil
            attachment.client?.busUnavailable(reason, hadConnection: had)
        }
        guard wasUp else {
            setStatus(.unavailable(reason))
            return
        }
        let wait = min(Self.longestWait, .seconds(1 << min(attempts, 6)))
        attempts += 1
        retryAt = loop.now + wait
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = loop.schedule(after: wait) { [weak self] in
            guard let self else { return }
            self.retryTimer = nil
            self.retryAt = nil
            self.connect()
        }
        setStatus(.lost(reason))
    }

    private func setStatus(_ new: Status) {
        guard new != status else { return }
        status = new
        loop.execute { [weak self] in
            guard let self, self.status == new else { return }
            self.onStatusChange?(new)
        }
    }
}
