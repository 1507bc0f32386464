// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Follows systemd-logind over D-Bus for the sleep input of DESIGN §6, and takes its inhibitor
/// locks: `PrepareForSleep(b)` of `org.freedesktop.login1.Manager` on `/org/freedesktop/login1`,
/// its `InhibitDelayMaxUSec` (how long logind waits for a delay inhibitor before suspending), and
/// `Inhibit(what, who, why, mode)`, whose answer is a descriptor: the lock is held while it is
/// open (``InhibitorLock``).
///
/// As the other bus monitors: everything runs on the `EventLoop` without a thread or a blocking
/// call; the matches (`NameOwnerChanged` of `org.freedesktop.login1`, `PrepareForSleep`) go out
/// before `GetNameOwner` and the property read; a signal is believed only from the current
/// owner's unique name; logind is never started by the monitor (auto-start off, calls to the
/// owner's unique name). Callbacks run on the loop thread outside D-Bus processing.
///
/// Loop-thread only.
public final class LogindMonitor {
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
    private let bus: BusAddress
    private var connection: BusConnection?
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

    public init(loop: EventLoop, bus: BusAddress = .system) {
        self.loop = loop
        self.bus = bus
    }

    deinit { connection?.close() }

    /// Connects and starts watching; `.unavailable` when there is no bus (call again to retry).
    @discardableResult
    public func start() -> Status {
        if connection != nil { return status }
        session &+= 1
        owner = nil
        ownerKnown = false
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
            let installed: (BusError?) -> Void = { [weak self] error in
                guard let self, let error else { return }
                self.lost("the bus refused a match rule (\(error))")
            }
            try opened.watchOwner(of: Self.service, onInstalled: installed) { [weak self] owner in
                self?.ownerChanged(to: owner)
            }
            try opened.addMatch(
                "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='\(Self.interface)',"
                    + "member='PrepareForSleep'", onInstalled: installed) { [weak self] message in
                self?.prepareForSleep(message)
            }
            try opened.askOwner(of: Self.service, timeout: Self.callTimeout) { [weak self] owner in
                self?.ownerChanged(to: owner)
            }
        } catch {
            opened.close()
            connection = nil
            setStatus(.unavailable("cannot watch the bus (\(error))"))
            return status
        }
        setStatus(.connecting(bus: bus.description))
        return status
    }

    /// Closes the connection; no callback after this. Locks already taken stay held until
    /// their owners release them.
    public func stop() {
        session &+= 1
        connection?.close()
        connection = nil
        owner = nil
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
        guard let newOwner, let connection else {
            setStatus(.watching(logind: false))
            return
        }
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

    private func lost(_ reason: String) {
        connection?.close()
        connection = nil
        owner = nil
        setStatus(.unavailable(reason))
    }

    private func setStatus(_ new: Status) {
        guard new != status else { return }
        status = new
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
