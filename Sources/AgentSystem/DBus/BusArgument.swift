// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Glibc

/// A method-call argument of the few D-Bus types the agent sends: enough for
/// `org.freedesktop.Notifications.Notify` (`susssasa{sv}i`).
enum BusArgument {
    case string(String)
    case uint32(UInt32)
    case int32(Int32)
    case stringArray([String])
    /// `a{sv}`: a dictionary of variants (notification hints), in the given order.
    case variants([(String, BusVariant)])

    /// Appends the value at the end of `message`.
    func append(to message: OpaquePointer) throws(BusError) {
        switch self {
        case .string(let text):
            try Self.check(text.withCString { csd_bus_message_append_basic(message, Self.code("s"), $0) })
        case .uint32(var value):
            try Self.check(csd_bus_message_append_basic(message, Self.code("u"), &value))
        case .int32(var value):
            try Self.check(csd_bus_message_append_basic(message, Self.code("i"), &value))
        case .stringArray(let items):
            try Self.check(csd_bus_message_open_container(message, Self.code("a"), "s"))
            for item in items { try BusArgument.string(item).append(to: message) }
            try Self.check(csd_bus_message_close_container(message))
        case .variants(let entries):
            try Self.check(csd_bus_message_open_container(message, Self.code("a"), "{sv}"))
            for (key, value) in entries {
                try Self.check(csd_bus_message_open_container(message, Self.code("e"), "sv"))
                try BusArgument.string(key).append(to: message)
                try value.append(to: message)
                try Self.check(csd_bus_message_close_container(message))
            }
            try Self.check(csd_bus_message_close_container(message))
        }
    }

    static func code(_ scalar: Unicode.Scalar) -> CChar { CChar(truncatingIfNeeded: scalar.value) }

    static func check(_ result: Int32) throws(BusError) {
        guard result >= 0 else { throw BusError(call: "building a D-Bus message", result: result) }
    }
}

/// A variant's value (`v`).
enum BusVariant {
    case string(String)
    case int32(Int32)
    case byte(UInt8)
    case boolean(Bool)

    func append(to message: OpaquePointer) throws(BusError) {
        let signature: String
        switch self {
        case .string: signature = "s"
        case .int32: signature = "i"
        case .byte: signature = "y"
        case .boolean: signature = "b"
        }
        try BusArgument.check(csd_bus_message_open_container(message, BusArgument.code("v"), signature))
        switch self {
        case .string(let text): try BusArgument.string(text).append(to: message)
        case .int32(let value): try BusArgument.int32(value).append(to: message)
        case .byte(var value): try BusArgument.check(csd_bus_message_append_basic(message, BusArgument.code("y"), &value))
        case .boolean(let value):
            // D-Bus booleans are 32-bit on the wire; sd-bus reads an int.
            var flag: Int32 = value ? 1 : 0
            try BusArgument.check(csd_bus_message_append_basic(message, BusArgument.code("b"), &flag))
        }
        try BusArgument.check(csd_bus_message_close_container(message))
    }
}

extension BusMessage {
    /// Reads a `b` at the cursor (a 32-bit int on the wire, as sd-bus reads it).
    func readBool() throws(BusError) -> Bool {
        var value: Int32 = 0
        let result = csd_bus_message_read_basic(raw, BusArgument.code("b"), &value)
        guard result > 0 else { throw BusError(name: nil, message: "expected a boolean (\(result))") }
        return value != 0
    }

    /// Reads a `t` (uint64) inside a variant at the cursor; nil (skipped) for another type.
    func readVariantUInt64() throws(BusError) -> UInt64? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = csd_bus_message_peek_type(raw, &type, &contents)
        guard peeked > 0, type == BusArgument.code("v") else { throw BusError(name: nil, message: "expected a variant") }
        guard let contents, String(cString: contents) == "t" else {
            let skipped = csd_bus_message_skip(raw, "v")
            guard skipped >= 0 else { throw BusError(call: "sd_bus_message_skip", result: skipped) }
            return nil
        }
        var result = csd_bus_message_enter_container(raw, BusArgument.code("v"), "t")
        guard result > 0 else { throw BusError(call: "sd_bus_message_enter_container(t)", result: result) }
        var value: UInt64 = 0
        result = csd_bus_message_read_basic(raw, BusArgument.code("t"), &value)
        guard result > 0 else { throw BusError(call: "sd_bus_message_read_basic(t)", result: result) }
        result = csd_bus_message_exit_container(raw)
        guard result >= 0 else { throw BusError(call: "sd_bus_message_exit_container", result: result) }
        return value
    }

    /// Reads a `h` (a unix descriptor) at the cursor and returns a duplicate the caller owns
    /// (close-on-exec): the message's own copy goes with the message.
    func readDescriptor() throws(BusError) -> Int32 {
        var borrowed: Int32 = -1
        let result = csd_bus_message_read_basic(raw, BusArgument.code("h"), &borrowed)
        guard result > 0, borrowed >= 0 else {
            throw BusError(name: nil, message: "expected a unix descriptor (\(result)); is fd passing on?")
        }
        let owned = fcntl(borrowed, F_DUPFD_CLOEXEC, 3)
        guard owned >= 0 else { throw BusError(name: nil, message: "fcntl(F_DUPFD_CLOEXEC): \(SystemError.text(errno))") }
        return owned
    }

    /// Reads a `u` at the cursor.
    func readUInt32() throws(BusError) -> UInt32 {
        var value: UInt32 = 0
        let result = csd_bus_message_read_basic(raw, BusArgument.code("u"), &value)
        guard result > 0 else { throw BusError(name: nil, message: "expected a uint32 (\(result))") }
        return value
    }
}
