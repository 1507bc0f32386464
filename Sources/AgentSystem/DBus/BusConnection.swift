// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Glibc

/// One sd-bus client connection driven by an `EventLoop`, with no thread and no blocking call.
///
/// Opening connects the socket (a non-blocking `connect(2)` on a unix socket, which succeeds or
/// fails at once); authentication, `Hello` and every call after it proceed asynchronously from
/// the loop: the connection's descriptor is watched for the events `sd_bus_get_events` asks for,
/// one loop timer is armed for `sd_bus_get_timeout` (authentication and method-call timeouts),
/// and each wakeup calls `sd_bus_process` until it returns 0. Calls and matches queued before
/// the connection is up are sent once it is.
///
/// Handlers run inside `sd_bus_process`: they may queue calls and cancel them, but should hand
/// anything that can re-enter the owner (user callbacks) to `EventLoop.execute`. `close` from a
/// handler is deferred until the current processing round ends.
///
/// Loop-thread only, like the `EventLoop` it lives on. No libsystemd type leaves this file's
/// module: the daemon sees only `PowerProfilesMonitor` and other Swift types.
final class BusConnection {
    /// A pending method call or an installed match; ends it when passed to `cancel`.
    struct Token: Hashable {
        fileprivate let id: UInt64
    }

    /// Holds a handler and its sd-bus slot. sd-bus gets an unretained pointer to it as userdata;
    /// `registrations` keeps it alive until the slot is released.
    fileprivate final class Registration {
        let id: UInt64
        weak var connection: BusConnection?
        var slot: OpaquePointer?
        /// Matches stay registered; a method-call reply ends its registration.
        let isReply: Bool
        let onMessage: (BusMessage) -> Void
        let onInstalled: ((BusError?) -> Void)?

        init(id: UInt64, connection: BusConnection, isReply: Bool, onMessage: @escaping (BusMessage) -> Void,
             onInstalled: ((BusError?) -> Void)?) {
            self.id = id
            self.connection = connection
            self.isReply = isReply
            self.onMessage = onMessage
            self.onInstalled = onInstalled
        }
    }

    private let loop: EventLoop
    private var bus: OpaquePointer?
    private var watchToken: WatchToken?
    private var timerToken: TimerToken?
    /// The sd-bus timeout (CLOCK_MONOTONIC µs) the loop timer is set for; `.max` when none.
    private var timerDeadlineUSec: UInt64 = .max
    private var registrations: [UInt64: Registration] = [:]
    private var nextID: UInt64 = 1
    private var processing = false
    private var closeRequested = false

    /// The address connected to, for messages.
    let address: BusAddress

    /// Called once, on the loop thread and outside `sd_bus_process`, when the connection is lost
    /// (the bus went away, authentication failed). Not called for `close()`.
    var onDisconnect: ((String) -> Void)?

    /// Whether the connection is open (possibly still authenticating).
    var isOpen: Bool { bus != nil }

    /// Connects to `address` and attaches the connection to `loop`. Throws when the socket cannot
    /// be connected (no bus there: ENOENT, ECONNREFUSED), the address is malformed or libsystemd
    /// cannot be loaded (`SystemdLibrary`).
    init(address: BusAddress, loop: EventLoop) throws(BusError) {
        self.address = address
        self.loop = loop
        // No socket, no bus: say so as connecting would, without loading libsystemd for it.
        try address.checkSocketExists()
        try SystemdLibrary.load()
        var raw: OpaquePointer?
        switch address {
        case .system:
            // Connects (non-blocking) and queues Hello; reads DBUS_SYSTEM_BUS_ADDRESS.
            let result = csd_bus_open_system(&raw)
            guard result >= 0, raw != nil else {
                throw BusError(call: "connect to \(address)", result: result)
            }
        case .address(let text):
            var result = csd_bus_new(&raw)
            guard result >= 0, let created = raw else { throw BusError(call: "sd_bus_new", result: result) }
            result = csd_bus_set_address(created, text)
            if result >= 0 { result = csd_bus_set_bus_client(created, 1) }
            if result >= 0 { result = csd_bus_start(created) }
            guard result >= 0 else {
                csd_bus_unref(created)
                throw BusError(call: "connect to \(text)", result: result)
            }
        }
        bus = raw
        do {
            try updateInterest()
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    // MARK: - Calls and matches

    /// Sends a method call whose arguments are all strings; `reply` gets the reply or an error
    /// reply (sd-bus synthesizes one on timeout or disconnection), exactly once, unless the call
    /// is cancelled first. Never starts (bus-activates) the destination service.
    @discardableResult
    func call(destination: String, path: String, interface: String, member: String, arguments: [String] = [],
              timeout: Duration, reply: @escaping (BusMessage) -> Void) throws(BusError) -> Token {
        try call(destination: destination, path: path, interface: interface, member: member,
                 typedArguments: arguments.map(BusArgument.string), timeout: timeout, reply: reply)
    }

    /// Sends a method call with arguments of any `BusArgument` type; otherwise as above.
    @discardableResult
    func call(destination: String, path: String, interface: String, member: String, typedArguments: [BusArgument],
              timeout: Duration, reply: @escaping (BusMessage) -> Void) throws(BusError) -> Token {
        guard let bus else { throw BusError(name: nil, message: "bus connection closed") }
        var message: OpaquePointer?
        var result = csd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw BusError(call: "sd_bus_message_new_method_call", result: result) }
        defer { csd_bus_message_unref(message) }
        for argument in typedArguments { try argument.append(to: message) }
        _ = csd_bus_message_set_auto_start(message, 0)
        let registration = register(isReply: true, onMessage: reply, onInstalled: nil)
        let micros = UInt64(max(1, MonotonicInstant.clampedNanoseconds(of: timeout) / 1000))
        var slot: OpaquePointer?
        result = csd_bus_call_async(bus, &slot, message, { message, userdata, _ in
            BusConnection.dispatch(message, userdata, installReply: false)
        }, Unmanaged.passUnretained(registration).toOpaque(), micros)
        guard result >= 0, let slot else {
            registrations[registration.id] = nil
            throw BusError(call: "sd_bus_call_async(\(member))", result: result)
        }
        registration.slot = slot
        try updateInterest()
        return Token(id: registration.id)
    }

    /// Installs a match rule without waiting for the bus to confirm it: `onMessage` gets every
    /// matching message from then on; `onInstalled` gets the bus's answer (nil: installed).
    @discardableResult
    func addMatch(_ rule: String, onInstalled: @escaping (BusError?) -> Void,
                  onMessage: @escaping (BusMessage) -> Void) throws(BusError) -> Token {
        guard let bus else { throw BusError(name: nil, message: "bus connection closed") }
        let registration = register(isReply: false, onMessage: onMessage, onInstalled: onInstalled)
        var slot: OpaquePointer?
        let result = csd_bus_add_match_async(bus, &slot, rule, { message, userdata, _ in
            BusConnection.dispatch(message, userdata, installReply: false)
        }, { message, userdata, _ in
            BusConnection.dispatch(message, userdata, installReply: true)
        }, Unmanaged.passUnretained(registration).toOpaque())
        guard result >= 0, let slot else {
            registrations[registration.id] = nil
            throw BusError(call: "sd_bus_add_match_async(\(rule))", result: result)
        }
        registration.slot = slot
        try updateInterest()
        return Token(id: registration.id)
    }

    /// Whether `token` is a pending call or an installed match (false once a reply came).
    func isRegistered(_ token: Token) -> Bool { registrations[token.id] != nil }

    /// Ends a pending call (its reply is dropped) or removes a match. Unknown tokens are ignored.
    func cancel(_ token: Token) {
        guard let registration = registrations.removeValue(forKey: token.id) else { return }
        release(registration)
    }

    private func register(isReply: Bool, onMessage: @escaping (BusMessage) -> Void,
                          onInstalled: ((BusError?) -> Void)?) -> Registration {
        let registration = Registration(id: nextID, connection: self, isReply: isReply, onMessage: onMessage,
                                        onInstalled: onInstalled)
        nextID += 1
        registrations[registration.id] = registration
        return registration
    }

    private func release(_ registration: Registration) {
        if let slot = registration.slot {
            registration.slot = nil
            csd_bus_slot_unref(slot)
        }
    }

    /// Entry point of every sd-bus callback (a C function: no captures).
    private static func dispatch(_ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                 installReply: Bool) -> Int32 {
        guard let message, let userdata else { return 0 }
        let registration = Unmanaged<Registration>.fromOpaque(userdata).takeUnretainedValue()
        withExtendedLifetime(registration) {
            let received = BusMessage(raw: message)
            if installReply {
                registration.onInstalled?(received.error)
                return
            }
            if registration.isReply, let connection = registration.connection {
                // One reply per call: drop the slot before the handler runs (sd-bus keeps its
                // own reference for the duration of this callback).
                if connection.registrations.removeValue(forKey: registration.id) != nil {
                    connection.release(registration)
                }
            }
            registration.onMessage(received)
        }
        // 0: let other matching handlers see the message too.
        return 0
    }

    // MARK: - Driving the connection from the loop

    /// Runs `sd_bus_process` until it has nothing left to do, then re-reads what to wait for.
    private func process() {
        guard let bus, !processing else { return }
        processing = true
        var failure: Int32 = 0
        while !closeRequested {
            let result = csd_bus_process(bus, nil)
            if result < 0 {
                failure = result
                break
            }
            if result == 0 { break }
        }
        processing = false
        if closeRequested {
            close()
            return
        }
        if failure != 0 || csd_bus_is_open(bus) <= 0 {
            let reason = failure != 0 ? SystemError.text(-failure) : "connection closed"
            disconnected(reason)
            return
        }
        do {
            try updateInterest()
        } catch {
            disconnected(error.description)
        }
    }

    /// Points the fd watch and the loop timer at what sd-bus waits for now.
    private func updateInterest() throws(BusError) {
        guard let bus else { return }
        let fd = csd_bus_get_fd(bus)
        guard fd >= 0 else { throw BusError(call: "sd_bus_get_fd", result: fd) }
        let mask = csd_bus_get_events(bus)
        guard mask >= 0 else { throw BusError(call: "sd_bus_get_events", result: mask) }
        var events: IOEvents = []
        if mask & Int32(POLLIN) != 0 { events.insert(.readable) }
        if mask & Int32(POLLOUT) != 0 { events.insert(.writable) }
        do {
            if let token = watchToken {
                try loop.change(token, events: events)
            } else {
                watchToken = try loop.watch(fd: fd, events: events) { [weak self] _ in self?.process() }
            }
        } catch {
            throw BusError(name: nil, message: "\(error)")
        }

        var deadline: UInt64 = .max
        let result = csd_bus_get_timeout(bus, &deadline)
        guard result >= 0 else { throw BusError(call: "sd_bus_get_timeout", result: result) }
        if let token = timerToken, loop.isScheduled(token), deadline == timerDeadlineUSec { return }
        if let token = timerToken { loop.cancel(token) }
        timerToken = nil
        timerDeadlineUSec = deadline
        guard deadline != .max else { return }
        // 0 means "process again at once"; the loop fires a past deadline in its next iteration.
        let (nanoseconds, overflow) = deadline.multipliedReportingOverflow(by: 1000)
        let instant = MonotonicInstant(nanoseconds: overflow ? .max : nanoseconds)
        timerToken = loop.schedule(at: instant) { [weak self] in
            guard let self else { return }
            self.timerToken = nil
            self.timerDeadlineUSec = .max
            self.process()
        }
    }

    private func disconnected(_ reason: String) {
        let handler = onDisconnect
        onDisconnect = nil
        close()
        handler?(reason)
    }

    /// Drops every call and match and closes the connection without flushing (never blocks).
    /// Safe from inside a handler: then the connection closes when the current round ends.
    func close() {
        if processing {
            closeRequested = true
            return
        }
        closeRequested = false
        if let token = watchToken { loop.unwatch(token) }
        watchToken = nil
        if let token = timerToken { loop.cancel(token) }
        timerToken = nil
        let all = registrations.values
        registrations = [:]
        for registration in all { release(registration) }
        if let bus {
            csd_bus_close_unref(bus)
        }
        bus = nil
    }
}
