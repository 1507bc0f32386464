// SPDX-License-Identifier: Apache-2.0

/// What every monitor of one service's property does on the bus (power-profiles-daemon's
/// `ActiveProfile`, NetworkManager's `Metered`): follow who owns the service name, follow the
/// property's `PropertiesChanged`, ask the owner now, read the property from the owner's unique
/// name (never activating it).
extension BusLease {
    static let busName = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"

    /// Follows `NameOwnerChanged` for `name`: `handler` gets the new owner's unique name, or nil
    /// when the name was released. Only the bus itself is believed.
    @discardableResult
    func watchOwner(of name: String, onInstalled: @escaping (BusError?) -> Void,
                    _ handler: @escaping (String?) -> Void) throws(BusError) -> BusConnection.Token {
        try addMatch(
            "type='signal',sender='\(Self.busName)',path='\(Self.busPath)',"
                + "interface='\(Self.busName)',member='NameOwnerChanged',arg0='\(name)'",
            onInstalled: onInstalled
        ) { message in
            guard message.sender == Self.busName,
                  let changed = try? message.readString(), changed == name,
                  (try? message.readString()) != nil,
                  let newOwner = try? message.readString() else { return }
            handler(newOwner.isEmpty ? nil : newOwner)
        }
    }

    /// Follows `PropertiesChanged` of `interface` on `path` (the handler checks the sender).
    @discardableResult
    func watchProperties(path: String, interface: String, onInstalled: @escaping (BusError?) -> Void,
                         _ handler: @escaping (BusMessage) -> Void) throws(BusError) -> BusConnection.Token {
        try addMatch(
            "type='signal',path='\(path)',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',arg0='\(interface)'",
            onInstalled: onInstalled, onMessage: handler)
    }

    /// Asks the bus who owns `name` now: `reply` gets the unique name, or nil (NameHasNoOwner, or
    /// any other error: both count as "not running"). The bus answers in order, so the answer is
    /// at least as new as any `NameOwnerChanged` before it.
    @discardableResult
    func askOwner(of name: String, timeout: Duration, _ reply: @escaping (String?) -> Void) throws(BusError) -> BusConnection.Token {
        try call(destination: Self.busName, path: Self.busPath, interface: Self.busName, member: "GetNameOwner",
                 arguments: [name], timeout: timeout) { message in
            reply(message.error == nil ? try? message.readString() : nil)
        }
    }

    /// `Properties.Get` of `property` from `owner` (a unique name: never activates a service).
    @discardableResult
    func readProperty(_ property: String, of interface: String, at path: String, from owner: String,
                      timeout: Duration, _ reply: @escaping (BusMessage) -> Void) throws(BusError) -> BusConnection.Token {
        try call(destination: owner, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                 arguments: [interface, property], timeout: timeout, reply: reply)
    }
}

/// How a property monitor hands its status and value to its owner: on the loop thread, outside
/// D-Bus processing (`EventLoop.execute`); each status change in order; value changes within one
/// iteration coalesced to the last, an unchanged value not handed on twice; nothing from before
/// the last `restart` (a stopped monitor's queued deliveries are dropped).
final class PropertyDelivery<Value: Equatable, Status: Equatable> {
    private let loop: EventLoop
    private let onValue: (Value?) -> Void
    var onStatus: ((Status) -> Void)?
    private var session: UInt64 = 0
    private var valueQueued = false
    private var delivered: Value??
    /// The latest value, nil while there is none.
    private(set) var value: Value?
    private(set) var status: Status

    init(loop: EventLoop, stopped: Status, onValue: @escaping (Value?) -> Void) {
        self.loop = loop
        self.status = stopped
        self.onValue = onValue
    }

    /// A new session: nothing queued before reaches the owner; the next value is handed on
    /// even when it equals the last one delivered.
    func restart() {
        session &+= 1
        valueQueued = false
        delivered = nil
        value = nil
    }

    /// Stopped: nothing queued reaches the owner, and the status is `stopped` at once.
    func stop(_ stopped: Status) {
        session &+= 1
        valueQueued = false
        value = nil
        status = stopped
    }

    func setStatus(_ new: Status) {
        guard new != status else { return }
        status = new
        guard onStatus != nil else { return }
        let current = session
        loop.execute { [weak self] in
            guard let self, self.session == current else { return }
            self.onStatus?(new)
        }
    }

    func setValue(_ new: Value?) {
        value = new
        guard !valueQueued else { return }
        valueQueued = true
        let current = session
        loop.execute { [weak self] in
            guard let self, self.session == current else { return }
            self.valueQueued = false
            let value = self.value
            if let delivered = self.delivered, delivered == value { return }
            self.delivered = .some(value)
            self.onValue(value)
        }
    }
}
