// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// Follows systemd-logind over D-Bus for the sleep input of DESIGN §6, and takes its inhibitor
/// locks: `PrepareForSleep(b)` of `org.freedesktop.login1.Manager` on `/org/freedesktop/login1`,
/// its `InhibitDelayMaxUSec` (how long logind waits for a delay inhibitor before suspending), and
/// `Inhibit(what, who, why, mode)`, whose answer is a descriptor: the lock is held while it is
/// open (``InhibitorLock``).
///
/// As the other bus monitors, on the connection `SystemBus` shares (after a reconnect everything
/// starts over on the new one): everything runs on the `EventLoop` without a thread or a blocking
/// call; the matches (`NameOwnerChanged` of `org.freedesktop.login1`, `PrepareForSleep`) go out
/// before `GetNameOwner` and the property read; a signal is believed only from the current
/// owner's unique name; logind is never started by the monitor (auto-start off, calls to the
/// owner's unique name). Callbacks run on the loop thread outside D-Bus processing.
///
/// The user's presence comes from the sessions `ListSessions` names that have a seat (the
/// per-user agent: its own user's among them): their `IdleHint`, `IdleSinceHint` and
/// `LockedHint`, followed through `PropertiesChanged` under `/org/freedesktop/login1/session`,
/// and the list read again on `SessionNew`/`SessionRemoved`.
///
/// Loop-thread only.
public final class LogindMonitor: SystemBusClient {
    /// Whose sessions say whether the user is away.
    public enum SessionScope: Sendable, Equatable {
        /// Every session with a seat (the system agent).
        case seat
        /// This user's sessions with a seat (the per-user agent).
        case user(UInt32)
    }

    private struct SessionState {
        var known = false
        var idle = false
        var idleSince: SchedulerTime?
        var locked = false
        var lockedSince: SchedulerTime?
    }

    public enum Status: Sendable, Equatable, CustomStringConvertible {
        case stopped
        case connecting(bus: String)
        /// Watching the bus; `logind` says whether something owns `org.freedesktop.login1`.
        case watching(logind: Bool)
        /// No bus: no socket, connection refused or lost, a match refused.
        case unavailable(String)

        public var description: String {
            switch self {
            case .stopped: return "stopped"
            case .connecting(let bus): return "connecting to \(bus)"
            case .watching(true): return "watching systemd-logind"
            case .watching(false): return "systemd-logind not on the system bus"
            case .unavailable(let reason): return "unavailable: \(reason)"
            }
        }
    }

    static let service = "org.freedesktop.login1"
    static let path = "/org/freedesktop/login1"
    static let interface = "org.freedesktop.login1.Manager"
    static let callTimeout: Duration = .seconds(10)
    /// logind's own default for `InhibitDelayMaxSec=`, used until it answers.
    public static let defaultInhibitDelay: Duration = .seconds(5)

    private let loop: EventLoop
    private let systemBus: SystemBus
    private var connection: BusLease?
    private var attached = false
    private var owner: String?
    private var ownerKnown = false
    private var session: UInt64 = 0

    public private(set) var status: Status = .stopped
    /// logind's `InhibitDelayMaxUSec`, or ``defaultInhibitDelay`` until read.
    public private(set) var inhibitDelayMax: Duration = LogindMonitor.defaultInhibitDelay
    /// After a `PrepareForSleep`: true (about to sleep) or false (resumed).
    public var onPrepareForSleep: ((Bool) -> Void)?
    /// After `status` changed (also when logind appears or goes).
    public var onStatusChange: ((Status) -> Void)?

    private let scope: SessionScope
    /// Tracked sessions by object path.
    private var sessions: [String: SessionState] = [:]
    private var sessionReads: [String: BusConnection.Token] = [:]
    /// Whether the user is away, from the tracked sessions; `.unknown` without any.
    public private(set) var presence: UserPresence = .unknown
    /// Whether `presence` is logind's answer (or there is no logind to wait for): false from
    /// the connection until the sessions are listed and read, so that `RequiresIdle=` work
    /// waits for it rather than start on an unknown and be expired a moment later.
    public private(set) var presenceSettled = true
    /// ListSessions answered (or failed) since logind last appeared.
    private var sessionsListedOnce = false
    /// How many sessions `presence` is read from.
    public var sessionCount: Int { sessions.count }
    /// After `presence` changed.
    public var onPresenceChange: ((UserPresence) -> Void)?

    /// A monitor reading the shared `systemBus`. Nothing happens until `start()`.
    public init(loop: EventLoop, systemBus: SystemBus, scope: SessionScope = .seat) {
        self.loop = loop
        self.systemBus = systemBus
        self.scope = scope
    }

    /// A monitor on a bus of its own at `bus` (the system bus by default).
    public convenience init(loop: EventLoop, bus: BusAddress = .system, scope: SessionScope = .seat) {
        self.init(loop: loop, systemBus: SystemBus(loop: loop, address: bus), scope: scope)
    }

    deinit { systemBus.detach(ObjectIdentifier(self)) }

    /// Starts watching through the system bus (connecting it when it is not yet);
    /// `.unavailable` without a bus (the system bus reconnects by itself when it had been up).
    @discardableResult
    public func start() -> Status {
        if attached { return status }
        attached = true
        session &+= 1
        systemBus.attach(self)
        updatePresence()
        return status
    }

    /// Leaves the system bus; no callback after this. Locks already taken stay held until
    /// their owners release them.
    public func stop() {
        session &+= 1
        attached = false
        connection = nil
        owner = nil
        systemBus.detach(ObjectIdentifier(self))
        status = .stopped
    }

    /// `Inhibit(what, who, why, mode)`: `done` gets the lock, or why there is none (no logind,
    /// refused). Called on the loop thread, outside D-Bus processing, unless stopped first.
    public func inhibit(what: String, who: String, why: String, mode: String,
                        _ done: @escaping (Result<InhibitorLock, InhibitRefusal>) -> Void) {
        guard let connection, let owner else {
            let reason = InhibitRefusal(description: "systemd-logind is not on the bus (\(status))")
            loop.execute { done(.failure(reason)) }
            return
        }
        let current = session
        do {
            try connection.call(destination: owner, path: Self.path, interface: Self.interface, member: "Inhibit",
                                arguments: [what, who, why, mode], timeout: Self.callTimeout) { [weak self] reply in
                let result: Result<InhibitorLock, InhibitRefusal>
                if let error = reply.error {
                    result = .failure(InhibitRefusal(description: "\(error)"))
                } else {
                    do throws(BusError) {
                        result = .success(InhibitorLock(descriptor: try reply.readDescriptor(), what: what, mode: mode, why: why))
                    } catch {
                        result = .failure(InhibitRefusal(description: "\(error)"))
                    }
                }
                self?.loop.execute { [weak self] in
                    guard let self, self.session == current else {
                        if case .success(let lock) = result { lock.release() }
                        return
                    }
                    done(result)
                }
            }
        } catch {
            let reason = InhibitRefusal(description: "\(error)")
            loop.execute { done(.failure(reason)) }
        }
    }

    // MARK: - Bus traffic

    private func ownerChanged(to newOwner: String?) {
        if ownerKnown, newOwner == owner { return }
        ownerKnown = true
        owner = newOwner
        sessionsListedOnce = false
        forgetSessions()
        guard let newOwner, let connection else {
            setStatus(.watching(logind: false))
            return
        }
        listSessions()
        do {
            try connection.readProperty("InhibitDelayMaxUSec", of: Self.interface, at: Self.path, from: newOwner,
                                        timeout: Self.callTimeout) { [weak self] reply in
                guard let self else { return }
                if reply.error == nil, let micros = try? reply.readVariantUInt64() {
                    self.inhibitDelayMax = .microseconds(Int64(clamping: micros))
                }
                self.setStatus(.watching(logind: true))
            }
        } catch {
            setStatus(.watching(logind: true))
        }
    }

    private func prepareForSleep(_ message: BusMessage) {
        guard let owner, message.sender == owner, message.member == "PrepareForSleep",
              let going = try? message.readBool() else { return }
        let current = session
        loop.execute { [weak self] in
            guard let self, self.session == current else { return }
            self.onPrepareForSleep?(going)
        }
    }

    // MARK: - Sessions and the user's presence

    private func listSessions() {
        guard let connection, let owner else { return }
        do {
            try connection.call(destination: owner, path: Self.path, interface: Self.interface, member: "ListSessions",
                                timeout: Self.callTimeout) { [weak self] reply in
                guard let self else { return }
                self.sessionsListedOnce = true
                guard reply.error == nil, let entries = try? reply.readSessionList() else {
                    self.updatePresence()
                    return
                }
                self.sessionsListed(entries)
            }
        } catch {
            return
        }
    }

    private func sessionsListed(_ entries: [BusMessage.SessionEntry]) {
        let wanted = Set(entries.filter { entry in
            guard !entry.seat.isEmpty else { return false }
            if case .user(let uid) = scope { return entry.uid == uid }
            return true
        }.map(\.path))
        for path in sessions.keys where !wanted.contains(path) {
            sessions[path] = nil
            if let token = sessionReads.removeValue(forKey: path) { connection?.cancel(token) }
        }
        for path in wanted where sessions[path] == nil {
            sessions[path] = SessionState()
            readSession(path)
        }
        updatePresence()
    }

    private func readSession(_ path: String) {
        guard let connection, let owner else { return }
        if let token = sessionReads.removeValue(forKey: path) { connection.cancel(token) }
        do {
            sessionReads[path] = try connection.call(
                destination: owner, path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                arguments: ["org.freedesktop.login1.Session"], timeout: Self.callTimeout) { [weak self] reply in
                guard let self else { return }
                self.sessionReads[path] = nil
                guard reply.error == nil, let values = try? reply.readPropertyValues() else {
                    // Gone between the list and the read: the next SessionRemoved drops it.
                    self.updatePresence()
                    return
                }
                self.apply(values, to: path)
            }
        } catch {
            return
        }
    }

    private func sessionPropertiesChanged(_ message: BusMessage) {
        guard let owner, message.sender == owner, let path = message.path, sessions[path] != nil,
              (try? message.readString()) == "org.freedesktop.login1.Session",
              let values = try? message.readPropertyValues() else { return }
        apply(values, to: path)
        if !values.keys.contains("IdleHint") && !values.keys.contains("LockedHint") {
            // Invalidated rather than sent: read them.
            readSession(path)
        }
    }

    private func apply(_ values: [String: BusMessage.PropertyValue], to path: String) {
        guard var state = sessions[path] else { return }
        let now = SchedulerTime(seconds: loop.clock.realtimeSeconds)
        state.known = true
        if case .bool(let idle)? = values["IdleHint"] { state.idle = idle }
        if case .uint64(let micros)? = values["IdleSinceHint"] {
            state.idleSince = micros == 0 ? now : SchedulerTime(seconds: Double(micros) / 1_000_000)
        }
        if case .bool(let locked)? = values["LockedHint"] {
            if locked, !state.locked || state.lockedSince == nil { state.lockedSince = now }
            state.locked = locked
        }
        sessions[path] = state
        updatePresence()
    }

    private func forgetSessions() {
        for token in sessionReads.values { connection?.cancel(token) }
        sessionReads = [:]
        sessions = [:]
        updatePresence()
    }

    /// Away when every session read so far is idle or locked, since the latest of those moments.
    private func updatePresence() {
        let known = sessions.values.filter(\.known)
        var new: UserPresence = .unknown
        if !known.isEmpty {
            var since: SchedulerTime?
            var everyoneAway = true
            for state in known {
                guard state.idle || state.locked else {
                    everyoneAway = false
                    break
                }
                let from = state.idle ? state.idleSince : state.lockedSince
                if let from, since.map({ from > $0 }) ?? true { since = from }
            }
            if everyoneAway {
                new = .away(since: since ?? SchedulerTime(seconds: loop.clock.realtimeSeconds))
            } else {
                new = .active
            }
        }
        let settled: Bool
        switch status {
        case .connecting: settled = false
        case .watching(logind: true): settled = sessionsListedOnce && sessionReads.isEmpty
        case .stopped: settled = !attached
        case .watching(logind: false), .unavailable: settled = true
        }
        guard new != presence || settled != presenceSettled else { return }
        presence = new
        presenceSettled = settled
        let current = session
        loop.execute { [weak self] in
            guard let self, self.session == current else { return }
            self.onPresenceChange?(self.presence)
        }
    }

    // MARK: - The shared connection

    var busClientName: String { "logind" }

    func busConnected(_ lease: BusLease) throws {
        connection = lease
        owner = nil
        ownerKnown = false
        let installed: (BusError?) -> Void = { [weak self] error in
            guard let self, let error else { return }
            self.busUnavailable("the bus refused a match rule (\(error))", hadConnection: true)
        }
        try lease.watchOwner(of: Self.service, onInstalled: installed) { [weak self] owner in
            self?.ownerChanged(to: owner)
        }
        try lease.addMatch(
            "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='\(Self.interface)',"
                + "member='PrepareForSleep'", onInstalled: installed) { [weak self] message in
            self?.prepareForSleep(message)
        }
        try lease.addMatch(
            "type='signal',sender='\(Self.service)',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',path_namespace='\(Self.path)/session'",
            onInstalled: installed) { [weak self] message in
            self?.sessionPropertiesChanged(message)
        }
        for member in ["SessionNew", "SessionRemoved"] {
            try lease.addMatch(
                "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='\(Self.interface)',"
                    + "member='\(member)'", onInstalled: installed) { [weak self] message in
                guard let self, message.sender == self.owner else { return }
                self.listSessions()
            }
        }
        try lease.askOwner(of: Self.service, timeout: Self.callTimeout) { [weak self] owner in
            self?.ownerChanged(to: owner)
        }
        setStatus(.connecting(bus: systemBus.address.description))
    }

    func busUnavailable(_ reason: String, hadConnection: Bool) {
        forgetSessions()
        connection?.end()
        connection = nil
        owner = nil
        setStatus(.unavailable(reason))
    }

    private func setStatus(_ new: Status) {
        guard new != status else { return }
        status = new
        updatePresence()
        let current = session
        loop.execute { [weak self] in
            guard let self, self.session == current else { return }
            self.onStatusChange?(new)
        }
    }
}

/// Why logind gave no inhibitor lock: not on the bus, an error reply, no descriptor.
public struct InhibitRefusal: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// A logind inhibitor lock: held while its descriptor is open. `release` (or dropping the last
/// reference) closes it, and logind forgets the lock.
public final class InhibitorLock {
    private var descriptor: Int32
    public let what: String
    public let mode: String
    public let why: String

    init(descriptor: Int32, what: String, mode: String, why: String) {
        self.descriptor = descriptor
        self.what = what
        self.mode = mode
        self.why = why
    }

    deinit { release() }

    public var isHeld: Bool { descriptor >= 0 }

    public func release() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
