// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A private `dbus-daemon --session` on a socket in a temp directory, open to every uid (the
/// user agent under test and a notification server run as root share it).
final class SessionBus {
    let directory: String
    let address: String
    private let daemon: LineCollectingProcess

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("agentd-bus-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        let config = directory + "/bus.conf"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """.write(toFile: config, atomically: false, encoding: .utf8)
        guard let path = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestUserError("dbus-daemon is not installed (scripts/install-deps.sh installs it)")
        }
        daemon = try LineCollectingProcess(name: "dbus-daemon", executable: path,
                                           arguments: ["--config-file=\(config)", "--nofork", "--print-address"],
                                           // As root it warns at every start that it cannot raise its fd limit.
                                           collectStderr: false, quietStderr: true)
        // Printed once the socket is listening.
        address = try daemon.waitForLine("with the bus address") { $0.hasPrefix("unix:") }.line
    }

    deinit {
        daemon.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The notification server stand-in built from Tests/NotificationsStandIn: each Notify and
/// CloseNotification it receives is one line (see its main.c).
final class NotificationServerStandIn {
    let child: LineCollectingProcess

    /// One `Notify` as the stand-in printed it.
    struct Call {
        var id: UInt32
        var replaces: UInt32
        var value: Int
        var actions: String
        var expire: Int
        var summary: String
        var body: String
        /// When the server received it (CLOCK_MONOTONIC seconds).
        var receivedAt: Double
        var appName: String
        var appIcon: String
        /// The `urgency` hint, -1 without one.
        var urgency: Int
        /// The `desktop-entry` hint, empty without one.
        var desktopEntry: String

        init?(_ line: String) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 13, fields[0] == "notify", let id = UInt32(fields[1]),
                  let receivedAt = Double(fields[8]), let urgency = Int(fields[11]),
                  let replaces = UInt32(fields[2]), let value = Int(fields[3]), let expire = Int(fields[5]) else { return nil }
            self.id = id
            self.replaces = replaces
            self.value = value
            actions = fields[4]
            self.expire = expire
            summary = fields[6]
            body = fields[7]
            self.receivedAt = receivedAt
            appName = fields[9]
            appIcon = fields[10]
            self.urgency = urgency
            desktopEntry = fields[12]
        }
    }

    init(bus: SessionBus) throws {
        child = try LineCollectingProcess(name: "notifications-stand-in", executable: Binaries.directory + "/notifications-stand-in",
                                          arguments: [bus.address], collectStderr: false)
        try child.waitForLine(containing: "ready")
    }

    /// Waits for the next `Notify` (after line `after`) that `matches`.
    func waitForNotify(after: Int = 0, timeout: Double = 20, _ description: String,
                       sourceLocation: SourceLocation = #_sourceLocation,
                       where matches: @escaping (Call) -> Bool) throws -> (call: Call, index: Int) {
        let found = try child.waitForLine(after: after, timeout: timeout, description, sourceLocation: sourceLocation) { line in
            Call(line).map(matches) ?? false
        }
        guard let call = Call(found.line) else { throw POSIXError(.EINVAL) }
        return (call, found.index)
    }

    var calls: [Call] { child.allLines.compactMap(Call.init) }

    func invoke(_ id: UInt32, _ key: String) throws {
        child.writeLine("invoke \(id) \(key)")
        try child.waitForLine(containing: "invoked \(id) \(key)")
    }

    /// The user closes notification `id` (NotificationClosed reason 2).
    func dismiss(_ id: UInt32) throws {
        child.writeLine("dismiss \(id)")
        try child.waitForLine(containing: "dismissed \(id)")
    }
}
