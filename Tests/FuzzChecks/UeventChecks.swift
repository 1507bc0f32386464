// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// Uevent datagrams: never a key without `=` (every key non-empty, none containing `=` or NUL),
/// a well-formed header, and the event encodes to a datagram that parses to the same event.
enum UeventChecks {
    static func check(_ bytes: [UInt8]) -> String? {
        guard let event = try? Uevent.parse(bytes) else { return nil }
        for key in event.properties.keys where key.isEmpty || key.contains("=") || key.utf8.contains(0) {
            return "property key \(String(reflecting: key))"
        }
        // Bytes, not Characters: a combining mark after the `/` makes a Character of its own.
        if event.action.isEmpty || event.devpath.utf8.first != UInt8(ascii: "/") { return "header \(event.action)@\(event.devpath)" }
        let encoded = event.encoded()
        guard encoded.count <= Uevent.maximumSize else { return nil }
        guard let again = try? Uevent.parse(encoded) else { return "re-encoded \(event) does not parse" }
        return again.action == event.action && again.devpath == event.devpath
            && again.properties.merging(event.properties) { new, _ in new } == again.properties
            ? nil : "re-encoded \(event) parses as \(again)"
    }
}
