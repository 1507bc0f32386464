// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Which D-Bus bus to connect to.
public enum BusAddress: Sendable, Equatable, CustomStringConvertible {
    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS` when set, else `unix:path=/run/dbus/system_bus_socket`
    /// (libsystemd's `sd_bus_open_system` rule).
    case system
    /// A bus at a D-Bus address such as `unix:path=/tmp/x/bus` (tests, private buses).
    case address(String)

    /// The address that will be tried, for messages.
    public var description: String {
        switch self {
        case .system:
            if let env = getenv("DBUS_SYSTEM_BUS_ADDRESS") { return String(cString: env) }
            return "unix:path=/run/dbus/system_bus_socket"
        case .address(let address):
            return address
        }
    }
}

/// A failed bus operation: a libsystemd errno, or a D-Bus error reply (`name` set).
struct BusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.NameHasNoOwner`; nil for an errno.
    let name: String?
    let message: String

    init(name: String?, message: String) {
        self.name = name
        self.message = message
    }

    /// A negative return value of an sd-bus call (`-errno`), with what was being done.
    init(call: String, result: Int32) {
        name = nil
        message = "\(call): \(SystemError.text(result < 0 ? -result : result))"
    }

    var description: String {
        guard let name else { return message }
        return message.isEmpty ? name : "\(name): \(message)"
    }
}
