// SPDX-License-Identifier: Apache-2.0
import CSystemd

/// A received D-Bus message, borrowed for the duration of one handler call (the wrapped
/// `sd_bus_message` is not retained: never keep a `BusMessage` after the handler returns).
///
/// Reading advances the message's read cursor, as sd-bus does.
struct BusMessage {
    let raw: OpaquePointer

    /// The unique name of the sending connection (`:1.42`), or `org.freedesktop.DBus` for the bus.
    var sender: String? { csd_bus_message_get_sender(raw).map { String(cString: $0) } }
    var path: String? { csd_bus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { csd_bus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { csd_bus_message_get_member(raw).map { String(cString: $0) } }

    /// The error carried by an error reply (including the ones sd-bus synthesizes for a timeout
    /// or a lost connection); nil for a normal reply or a signal.
    var error: BusError? {
        guard let error = csd_bus_message_get_error(raw) else { return nil }
        let name = error.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = error.pointee.message.map { String(cString: $0) } ?? ""
        return BusError(name: name, message: message)
    }

    private static func code(_ scalar: Unicode.Scalar) -> CChar { CChar(truncatingIfNeeded: scalar.value) }

    /// Reads a string (`s`) or object path (`o`) at the cursor.
    func readString() throws(BusError) -> String {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = csd_bus_message_peek_type(raw, &type, &contents)
        guard peeked > 0 else {
            throw BusError(name: nil, message: "expected a string, found the end of the message")
        }
        guard type == Self.code("s") || type == Self.code("o") else {
            throw BusError(name: nil, message: "expected a string, found type '\(Character(Unicode.Scalar(UInt8(bitPattern: type))))'")
        }
        var value: UnsafePointer<CChar>?
        let result = csd_bus_message_read_basic(raw, type, &value)
        guard result > 0, let value else { throw BusError(call: "sd_bus_message_read_basic", result: result) }
        return String(cString: value)
    }

    /// Reads a variant (`v`) at the cursor: its string when it holds one (`s`), nil (skipped)
    /// when it holds another type.
    func readVariantString() throws(BusError) -> String? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = csd_bus_message_peek_type(raw, &type, &contents)
        guard peeked > 0, type == Self.code("v") else {
            throw BusError(name: nil, message: "expected a variant")
        }
        guard let contents, String(cString: contents) == "s" else {
            let skipped = csd_bus_message_skip(raw, "v")
            guard skipped >= 0 else { throw BusError(call: "sd_bus_message_skip", result: skipped) }
            return nil
        }
        try enter(Self.code("v"), "s")
        let value = try readString()
        try exit()
        return value
    }

    /// Reads a variant (`v`) at the cursor: its value when it holds a `u` (uint32), nil (skipped)
    /// when it holds another type.
    func readVariantUInt32() throws(BusError) -> UInt32? {
        switch try readVariant() {
        case .uint32(let value): return value
        default: return nil
        }
    }

    /// A variant's value, for the types the agent reads.
    enum Variant {
        case string(String)
        case uint32(UInt32)
        /// Another type, skipped.
        case other
    }

    /// Reads a variant (`v`) at the cursor; types other than `s` and `u` are skipped.
    func readVariant() throws(BusError) -> Variant {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = csd_bus_message_peek_type(raw, &type, &contents)
        guard peeked > 0, type == Self.code("v") else {
            throw BusError(name: nil, message: "expected a variant")
        }
        switch contents.map({ String(cString: $0) }) {
        case "s":
            try enter(Self.code("v"), "s")
            let value = try readString()
            try exit()
            return .string(value)
        case "u":
            try enter(Self.code("v"), "u")
            var value: UInt32 = 0
            let result = csd_bus_message_read_basic(raw, Self.code("u"), &value)
            guard result > 0 else { throw BusError(call: "sd_bus_message_read_basic(u)", result: result) }
            try exit()
            return .uint32(value)
        default:
            let skipped = csd_bus_message_skip(raw, "v")
            guard skipped >= 0 else { throw BusError(call: "sd_bus_message_skip", result: skipped) }
            return .other
        }
    }

    /// Reads the body of `org.freedesktop.DBus.Properties.PropertiesChanged` (`sa{sv}as`):
    /// the interface, the changed properties whose values are strings or uint32s (others are
    /// skipped), and the names of the invalidated properties.
    func readPropertiesChanged() throws(BusError) -> (interface: String, strings: [String: String],
                                                     uint32s: [String: UInt32], invalidated: [String]) {
        let interface = try readString()
        var strings: [String: String] = [:]
        var uint32s: [String: UInt32] = [:]
        try enter(Self.code("a"), "{sv}")
        while try enterIfPresent(Self.code("e"), "sv") {
            let name = try readString()
            switch try readVariant() {
            case .string(let value): strings[name] = value
            case .uint32(let value): uint32s[name] = value
            case .other: break
            }
            try exit()
        }
        try exit()
        var invalidated: [String] = []
        try enter(Self.code("a"), "s")
        while true {
            var value: UnsafePointer<CChar>?
            let result = csd_bus_message_read_basic(raw, Self.code("s"), &value)
            guard result >= 0 else { throw BusError(call: "sd_bus_message_read_basic", result: result) }
            guard result > 0, let value else { break }
            invalidated.append(String(cString: value))
        }
        try exit()
        return (interface, strings, uint32s, invalidated)
    }

    func enter(_ type: CChar, _ contents: String) throws(BusError) {
        guard try enterIfPresent(type, contents) else {
            throw BusError(name: nil, message: "expected a container of \(contents)")
        }
    }

    /// Enters a container; false at the end of the enclosing array.
    func enterIfPresent(_ type: CChar, _ contents: String) throws(BusError) -> Bool {
        let result = csd_bus_message_enter_container(raw, type, contents)
        guard result >= 0 else { throw BusError(call: "sd_bus_message_enter_container(\(contents))", result: result) }
        return result > 0
    }

    func exit() throws(BusError) {
        let result = csd_bus_message_exit_container(raw)
        guard result >= 0 else { throw BusError(call: "sd_bus_message_exit_container", result: result) }
    }
}
