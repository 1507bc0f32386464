// SPDX-License-Identifier: Apache-2.0
import CSystemd

/// The message bodies of logind the agent reads: `ListSessions` and the sessions' boolean and
/// timestamp properties.
extension BusMessage {
    /// A property value of the types logind's session properties use.
    enum PropertyValue: Equatable {
        case bool(Bool)
        case uint64(UInt64)
        case other
    }

    /// One entry of `ListSessions` (`a(susso)`).
    struct SessionEntry: Equatable {
        var id: String
        var uid: UInt32
        var seat: String
        var path: String
    }

    /// Reads `a(susso)`.
    func readSessionList() throws(BusError) -> [SessionEntry] {
        var entries: [SessionEntry] = []
        try enter(BusArgument.code("a"), "(susso)")
        while try enterIfPresent(BusArgument.code("r"), "susso") {
            let id = try readString()
            let uid = try readUInt32()
            _ = try readString()  // the user's name
            let seat = try readString()
            let path = try readString()
            try exit()
            entries.append(SessionEntry(id: id, uid: uid, seat: seat, path: path))
        }
        try exit()
        return entries
    }

    /// Reads `a{sv}` (the reply of `Properties.GetAll`, or the middle of `PropertiesChanged`);
    /// values other than `b` and `t` are skipped.
    func readPropertyValues() throws(BusError) -> [String: PropertyValue] {
        var values: [String: PropertyValue] = [:]
        try enter(BusArgument.code("a"), "{sv}")
        while try enterIfPresent(BusArgument.code("e"), "sv") {
            let name = try readString()
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            let peeked = csd_bus_message_peek_type(raw, &type, &contents)
            guard peeked > 0, type == BusArgument.code("v") else { throw BusError(name: nil, message: "expected a variant") }
            switch contents.map({ String(cString: $0) }) {
            case "b":
                try enter(BusArgument.code("v"), "b")
                values[name] = .bool(try readBool())
                try exit()
            case "t":
                try enter(BusArgument.code("v"), "t")
                var value: UInt64 = 0
                let result = csd_bus_message_read_basic(raw, BusArgument.code("t"), &value)
                guard result > 0 else { throw BusError(call: "sd_bus_message_read_basic(t)", result: result) }
                values[name] = .uint64(value)
                try exit()
            default:
                let skipped = csd_bus_message_skip(raw, "v")
                guard skipped >= 0 else { throw BusError(call: "sd_bus_message_skip", result: skipped) }
                values[name] = .other
            }
            try exit()
        }
        try exit()
        return values
    }
}
