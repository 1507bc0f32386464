// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Sends uevent datagrams on NETLINK_KOBJECT_UEVENT group 1, as the kernel would — from inside the
/// network namespace of a given process. Tests use it to exercise `UeventMonitor` against the real
/// kernel without touching the host's devices: in a private network namespace only the monitors
/// opened in that namespace (and no udevd) see the injected events.
///
/// Multicasting on this protocol needs CAP_NET_ADMIN in the namespace's owning user namespace; the
/// receiving monitor sees the injector's port id (non-zero) and, with SO_PASSCRED, its uid.
public final class UeventInjector {
    private let socket: NetlinkSocket

    /// Opens the sending socket in the network namespace of `pid` (nil: the caller's own namespace,
    /// where the host's udevd and every other uevent listener would see the events too).
    public init(networkNamespaceOf pid: pid_t?) throws {
        socket = try NetlinkSocket(protocol: .kobjectUevent, networkNamespaceOf: pid,
                                   receiveBufferSize: 4096, maximumDatagramSize: 4096)
    }

    /// Closes the socket.
    public func close() {
        socket.close()
    }

    /// The sending socket's port id (the `nl_pid` receivers see).
    public var portID: UInt32 { socket.portID }

    /// Multicasts `event` in the kernel's format (`Uevent.encoded()`) to group 1.
    public func send(_ event: Uevent) throws {
        try send(raw: event.encoded())
    }

    /// Multicasts arbitrary bytes to group 1 (for malformed-input tests).
    public func send(raw bytes: [UInt8]) throws {
        try socket.send(bytes, toPort: 0, groups: 1 << (UeventMonitor.kernelGroup - 1))
    }

    /// Unicasts arbitrary bytes to one socket's port id (e.g. a monitor's `portID`).
    public func send(raw bytes: [UInt8], toPort port: UInt32) throws {
        try socket.send(bytes, toPort: port, groups: 0)
    }

    /// A power_supply `change` event like the kernel's for a mains adapter named `name`.
    public static func powerSupplyChange(name: String = "AC", online: Bool = true) -> Uevent {
        let devpath = "/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/\(name)"
        return Uevent(action: "change", devpath: devpath, properties: [
            "ACTION": "change", "DEVPATH": devpath, "SUBSYSTEM": "power_supply",
            "POWER_SUPPLY_NAME": name, "POWER_SUPPLY_TYPE": "Mains",
            "POWER_SUPPLY_ONLINE": online ? "1" : "0",
        ])
    }
}
