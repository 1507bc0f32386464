// SPDX-License-Identifier: Apache-2.0
/// The zone a `Schedule=` names (`*-*-* 09:00 Europe/Berlin`, `12:00 UTC`) with its rules, handed
/// in by the shell: the core reads no zone file. Events without one follow the local zone.
public struct CalendarZone: Sendable, Hashable {
    public var name: String
    public var rule: any UTCOffsetRule

    public init(name: String, rule: any UTCOffsetRule) {
        self.name = name
        self.rule = rule
    }

    public static let utc = CalendarZone(name: "UTC", rule: FixedUTCOffset.utc)

    /// Two events naming the same zone are the same event: the rules are the zone's.
    public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// Finds a named zone's rules (the shell reads `/usr/share/zoneinfo`); the core's parsers ask it
/// for every zone a calendar event names. Equal to every other lookup: it is a way in for the
/// system's zone files, not part of a config's value.
public struct ZoneLookup: Sendable, Hashable {
    public let rule: @Sendable (String) -> (any UTCOffsetRule)?

    public init(_ rule: @escaping @Sendable (String) -> (any UTCOffsetRule)?) {
        self.rule = rule
    }

    /// Knows no zone but UTC (which needs no file).
    public static let none = ZoneLookup { _ in nil }

    public static func == (a: Self, b: Self) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}

    /// Whether `name` could be a zone name: what a zone file may be called
    /// (`Europe/Berlin`, `Etc/GMT+5`, `EST5EDT`), with a letter, no `..` and no leading `/`.
    public static func isPlausibleName(_ name: some StringProtocol) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, bytes.first != UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/"),
              bytes.contains(where: { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") })
        else { return false }
        for part in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard let first = part.utf8.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-") else { return false }
        }
        return bytes.allSatisfy { byte in
            TextBytes.isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
        }
    }
}
