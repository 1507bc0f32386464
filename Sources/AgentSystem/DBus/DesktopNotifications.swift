// SPDX-License-Identifier: Apache-2.0
/// A client of the desktop notification server (`org.freedesktop.Notifications` on the session
/// bus, the Desktop Notifications Specification 1.2): shows and replaces notifications, closes
/// them, and reports the actions people invoke on them and their closing.
///
/// Like `PowerProfilesMonitor` it runs on the `EventLoop` through `BusConnection`, with no thread
/// and no blocking call: the connection is opened when the first notification is shown (a
/// non-blocking unix-socket connect), every call is asynchronous, and the server's
/// `ActionInvoked` and `NotificationClosed` signals are believed only from the connection that
/// answered the last `Notify` (a notification id means nothing coming from anyone else). The
/// server is never bus-activated. Callbacks run on the loop thread, outside D-Bus processing.
///
/// Loop-thread only.
public final class DesktopNotifications {
    public static let service = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"
    /// Bounds each call; a server that does not answer in this time counts as none.
    static let callTimeout: Duration = .seconds(5)

    private let loop: EventLoop
    private let address: BusAddress
    private let appName: String
    private var connection: BusConnection?
    /// The unique name of the server that answered the last `Notify`.
    private var server: String?

    /// An action was invoked: the notification id and the action's key.
    public var onAction: ((UInt32, String) -> Void)?
    /// A notification was closed: its id and why (the user dismissed it, it expired, …).
    public var onClosed: ((UInt32, NotificationCloseReason) -> Void)?

    public init(loop: EventLoop, address: BusAddress, appName: String = "agentd") {
        self.loop = loop
        self.address = address
        self.appName = appName
    }

    deinit {
        connection?.close()
    }

    /// Shows `notification`, replacing the one with id `replacing` (0: a new one). `reply` gets
    /// the id the server gave it, or why there is none (no bus, no server, an error reply),
    /// exactly once, on the loop thread.
    public func show(_ notification: DesktopNotification, replacing: UInt32,
                     reply: @escaping (Result<UInt32, NotificationFailure>) -> Void) {
        let connection: BusConnection
        do {
            connection = try connected()
        } catch {
            deliver { reply(.failure(error)) }
            return
        }
        do {
            try connection.call(destination: Self.service, path: Self.path, interface: Self.service, member: "Notify",
                                typedArguments: notification.arguments(appName: appName, replacing: replacing),
                                timeout: Self.callTimeout) { [weak self] message in
                let result: Result<UInt32, NotificationFailure>
                if let error = message.error {
                    result = .failure(NotificationFailure(description: Self.describe(error)))
                } else if let id = try? message.readUInt32() {
                    self?.server = message.sender
                    result = .success(id)
                } else {
                    result = .failure(NotificationFailure(description: "the notification server's answer to Notify holds no id"))
                }
                self?.deliver { reply(result) }
            }
        } catch {
            deliver { reply(.failure(NotificationFailure(description: "cannot call Notify on \(self.address): \(error)"))) }
        }
    }

    /// Words for a failed `Notify`: no server at all is the usual case, said plainly.
    static func describe(_ error: BusError) -> String {
        switch error.name {
        case "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.ServiceUnknown":
            return "no notification server on the session bus (nothing owns \(service))"
        default:
            return "the notification server answered \(error)"
        }
    }

    /// Asks the server to close notification `id`; errors are of no consequence (it may be gone).
    public func close(_ id: UInt32) {
        guard id != 0, let connection else { return }
        _ = try? connection.call(destination: Self.service, path: Self.path, interface: Self.service,
                                 member: "CloseNotification", typedArguments: [.uint32(id)],
                                 timeout: Self.callTimeout) { _ in }
    }

    /// Closes the bus connection; nothing is called back after this.
    public func stop() {
        connection?.close()
        connection = nil
        onAction = nil
        onClosed = nil
    }

    // MARK: - Connection

    private func connected() throws(NotificationFailure) -> BusConnection {
        if let connection, connection.isOpen { return connection }
        let opened: BusConnection
        do {
            opened = try BusConnection(address: address, loop: loop)
        } catch {
            throw NotificationFailure(description: "no session bus at \(address) (\(error))")
        }
        opened.onDisconnect = { [weak self] _ in
            self?.connection = nil
            self?.server = nil
        }
        do {
            try watchSignals(opened)
        } catch {
            opened.close()
            throw NotificationFailure(description: "cannot watch the notification server's signals on \(address) (\(error))")
        }
        connection = opened
        return opened
    }

    private func watchSignals(_ connection: BusConnection) throws(BusError) {
        let rule = "type='signal',path='\(Self.path)',interface='\(Self.service)',member="
        try connection.addMatch(rule + "'ActionInvoked'", onInstalled: { _ in }) { [weak self] message in
            guard let self, message.sender != nil, message.sender == self.server,
                  let id = try? message.readUInt32(), let key = try? message.readString() else { return }
            self.deliver { self.onAction?(id, key) }
        }
        try connection.addMatch(rule + "'NotificationClosed'", onInstalled: { _ in }) { [weak self] message in
            guard let self, message.sender != nil, message.sender == self.server,
                  let id = try? message.readUInt32(), let reason = try? message.readUInt32() else { return }
            self.deliver { self.onClosed?(id, NotificationCloseReason(code: reason)) }
        }
    }

    /// Runs `work` on the loop, outside D-Bus processing (it may call back into this client).
    private func deliver(_ work: @escaping () -> Void) {
        loop.execute(work)
    }
}

/// Why a notification was closed (the specification's `NotificationClosed` reason).
public enum NotificationCloseReason: Sendable, Equatable {
    case expired
    /// 2: the user dismissed it (a click, a close button, `dunstctl close`).
    case dismissedByUser
    /// 3: closed by a `CloseNotification` call.
    case closedByCall
    /// 4, or a code the specification does not define.
    case undefined

    public init(code: UInt32) {
        switch code {
        case 1: self = .expired
        case 2: self = .dismissedByUser
        case 3: self = .closedByCall
        default: self = .undefined
        }
    }
}

/// What to show (the specification's `Notify` arguments).
public struct DesktopNotification: Sendable, Equatable {
    public var summary: String
    public var body: String
    /// `app_name`; nil: the client's own (`agentd`).
    public var appName: String?
    /// `app_icon`: an icon theme name or an absolute path (sent as a `file://` URI); nil: none.
    public var icon: String?
    /// The `desktop-entry` hint: the app's `.desktop` file name without `.desktop`.
    public var desktopEntry: String?
    /// The `urgency` hint; nil leaves it out (the server's normal).
    public var urgency: Urgency?
    /// 0 to 100 in the `value` hint (a progress bar where the server draws one); nil for none.
    public var percent: Int?
    /// Action keys and their labels, e.g. `("cancel", "Cancel")`.
    public var actions: [Action]
    /// Milliseconds until it expires; -1 for the server's default, 0 for never.
    public var expireTimeout: Int32

    /// The specification's urgency levels (the `urgency` hint, a byte).
    public enum Urgency: UInt8, Sendable, Equatable {
        case low = 0, normal = 1, critical = 2
    }

    public struct Action: Sendable, Equatable {
        public var key: String
        public var label: String
        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    public init(summary: String, body: String, percent: Int? = nil, actions: [Action] = [], expireTimeout: Int32 = -1,
                appName: String? = nil, icon: String? = nil, desktopEntry: String? = nil, urgency: Urgency? = nil) {
        self.summary = summary
        self.body = body
        self.appName = appName
        self.icon = icon
        self.desktopEntry = desktopEntry
        self.urgency = urgency
        self.percent = percent
        self.actions = actions
        self.expireTimeout = expireTimeout
    }

    /// `susssasa{sv}i`: app name, replaces id, icon, summary, body, actions, hints, timeout.
    func arguments(appName defaultName: String, replacing: UInt32) -> [BusArgument] {
        var hints: [(String, BusVariant)] = []
        if let percent { hints.append(("value", .int32(Int32(max(0, min(100, percent)))))) }
        // Progress updates should not pile up in the server's history, the result may.
        hints.append(("transient", .boolean(percent != nil)))
        if let urgency { hints.append(("urgency", .byte(urgency.rawValue))) }
        if let desktopEntry { hints.append(("desktop-entry", .string(Self.plain(desktopEntry)))) }
        let name = appName.map(Self.plain).flatMap { $0.isEmpty ? nil : $0 } ?? defaultName
        return [.string(name), .uint32(replacing), .string(icon.map(Self.iconArgument) ?? ""), .string(Self.plain(summary)),
                .string(Self.markupEscaped(body)),
                .stringArray(actions.flatMap { [$0.key, $0.label] }), .variants(hints), .int32(expireTimeout)]
    }
}

extension DesktopNotification {
    /// `app_icon` as the specification reads it: a theme name as it is, an absolute path as a
    /// `file://` URI (bytes outside RFC 3986's unreserved set and `/` percent-encoded).
    static func iconArgument(_ icon: String) -> String {
        let icon = plain(icon)
        guard icon.hasPrefix("/") else { return icon }
        var uri = "file://"
        for byte in icon.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                uri += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return uri
    }

    /// The body as the specification's markup: every common server (GNOME Shell, Plasma, dunst,
    /// mako, xfce4-notifyd) reads the body as markup, so a plugin's `<a href=…>` or `&` would be
    /// interpreted, not shown. Control characters other than a newline are dropped (an ESC
    /// sequence from a plugin's STATUS= never reaches the screen).
    static func markupEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in plain(text).unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Without control characters but the newline (the summary is plain text in the spec).
    static func plain(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) }) else { return text }
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !isControl(scalar) { kept.append(scalar) }
        return String(kept)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
    }
}

/// Why a notification could not be shown, in words for the log.
public struct NotificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}
