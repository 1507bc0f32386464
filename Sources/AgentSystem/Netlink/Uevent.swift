// SPDX-License-Identifier: Apache-2.0
/// A kernel device event (uevent) as broadcast on NETLINK_KOBJECT_UEVENT group 1.
///
/// The kernel's datagram is a header `ACTION@DEVPATH` followed by `KEY=VALUE` properties, each
/// field terminated by a NUL byte:
///
///     change@/devices/LNXSYSTM:00/ACPI0003:00/power_supply/AC\0ACTION=change\0
///     DEVPATH=/devices/…/power_supply/AC\0SUBSYSTEM=power_supply\0POWER_SUPPLY_NAME=AC\0SEQNUM=1234\0
///
/// udevd re-broadcasts processed events in its own binary format, which starts with `libudev\0`;
/// those are rejected (agentd reads the kernel's events, not udev's). A uevent is a hint to re-read
/// sysfs, never the truth itself.
public struct Uevent: Equatable, Sendable, CustomStringConvertible {
    /// The largest datagram accepted (the kernel's UEVENT_BUFFER_SIZE is 2048; this leaves room).
    public static let maximumSize = 64 * 1024

    /// `add`, `remove`, `change`, `move`, `online`, `offline`, `bind`, `unbind`.
    public let action: String
    /// The device path below /sys, e.g. `/devices/…/power_supply/AC`.
    public let devpath: String
    /// Every `KEY=VALUE` property (a repeated key keeps its last value).
    public let properties: [String: String]

    public init(action: String, devpath: String, properties: [String: String] = [:]) {
        self.action = action
        self.devpath = devpath
        self.properties = properties
    }

    /// The `SUBSYSTEM` property (`power_supply`, `thermal`, `net`…).
    public var subsystem: String? { properties["SUBSYSTEM"] }

    /// A property by key.
    public subscript(key: String) -> String? { properties[key] }

    public var description: String {
        "\(action)@\(devpath) \(subsystem.map { "SUBSYSTEM=\($0)" } ?? "(no subsystem)")"
    }

    /// Why a datagram is not a kernel uevent.
    public enum ParseError: Error, Equatable, Sendable {
        /// No bytes at all.
        case empty
        /// Longer than `Uevent.maximumSize`.
        case tooLarge(Int)
        /// udevd's re-broadcast (`libudev\0` magic), not the kernel's format.
        case libudevFormat
        /// The first field is not `ACTION@/DEVPATH` with a non-empty ASCII action.
        case badHeader
        /// A property field without `=` or with an empty key.
        case badProperty(index: Int)
    }

    /// Parses one kernel uevent datagram. Pure; any byte array yields an event or an error, never a
    /// crash. Empty fields (a doubled or trailing NUL) are skipped; values are UTF-8 decoded with
    /// replacement characters (vendor strings are not always valid UTF-8).
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> Uevent {
        try parse(bytes[...])
    }

    /// Parses one kernel uevent datagram; see `parse(_:)`.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(ParseError) -> Uevent {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maximumSize else { throw .tooLarge(bytes.count) }
        if bytes.starts(with: libudevMagic) { throw .libudevFormat }

        var fields = bytes.split(separator: 0, omittingEmptySubsequences: true).makeIterator()
        guard let header = fields.next(), let at = header.firstIndex(of: UInt8(ascii: "@")) else {
            throw .badHeader
        }
        let actionBytes = header[header.startIndex..<at]
        let pathBytes = header[(at + 1)...]
        guard !actionBytes.isEmpty, actionBytes.allSatisfy(isActionByte),
              pathBytes.first == UInt8(ascii: "/") else { throw .badHeader }

        var properties: [String: String] = [:]
        var index = 0
        while let field = fields.next() {
            index += 1
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")), equals > field.startIndex else {
                throw .badProperty(index: index)
            }
            let key = String(decoding: field[field.startIndex..<equals], as: UTF8.self)
            properties[key] = String(decoding: field[(equals + 1)...], as: UTF8.self)
        }
        return Uevent(action: String(decoding: actionBytes, as: UTF8.self),
                      devpath: String(decoding: pathBytes, as: UTF8.self), properties: properties)
    }

    /// Encodes the event in the kernel's format: the header, then `ACTION`, `DEVPATH` and the other
    /// properties (sorted by key, for stable bytes), each NUL-terminated. `ACTION`/`DEVPATH`
    /// properties are written from `action`/`devpath` when `properties` lacks them.
    public func encoded() -> [UInt8] {
        var bytes = Array("\(action)@\(devpath)".utf8) + [0]
        var all = properties
        if all["ACTION"] == nil { all["ACTION"] = action }
        if all["DEVPATH"] == nil { all["DEVPATH"] = devpath }
        let ordered = ["ACTION", "DEVPATH"] + all.keys.filter { $0 != "ACTION" && $0 != "DEVPATH" }.sorted()
        for key in ordered {
            bytes += Array("\(key)=\(all[key]!)".utf8) + [0]
        }
        return bytes
    }

    /// The first bytes of udevd's monitor messages.
    static let libudevMagic: [UInt8] = Array("libudev".utf8) + [0]

    private static func isActionByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}
