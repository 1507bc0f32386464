// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// A netlink protocol family: which kernel subsystem a `NetlinkSocket` talks to.
public struct NetlinkProtocol: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// NETLINK_ROUTE: links, addresses, routes (rtnetlink(7)).
    public static let route = NetlinkProtocol(rawValue: CSHIM_NETLINK_ROUTE)
    /// NETLINK_KOBJECT_UEVENT: the kernel's device events (what udev listens to).
    public static let kobjectUevent = NetlinkProtocol(rawValue: CSHIM_NETLINK_KOBJECT_UEVENT)
    /// NETLINK_GENERIC: generic netlink families resolved by name through `nlctrl`.
    public static let generic = NetlinkProtocol(rawValue: CSHIM_NETLINK_GENERIC)

    public var description: String {
        switch self {
        case .route: return "NETLINK_ROUTE"
        case .kobjectUevent: return "NETLINK_KOBJECT_UEVENT"
        case .generic: return "NETLINK_GENERIC"
        default: return "netlink protocol \(rawValue)"
        }
    }
}

/// The credentials a datagram carried (SCM_CREDENTIALS, with SO_PASSCRED on).
public struct NetlinkCredentials: Hashable, Sendable {
    public let pid: pid_t
    public let uid: uid_t
    public let gid: gid_t

    public init(pid: pid_t, uid: uid_t, gid: gid_t) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// Who sent a received datagram, as the kernel reports it.
public struct NetlinkSender: Hashable, Sendable {
    /// The sender's port id (`nl_pid`): 0 for the kernel itself.
    public let portID: UInt32
    /// The legacy group bitmask the datagram was multicast to (0: unicast).
    public let groups: UInt32
    /// SCM_CREDENTIALS of the sending process (only when SO_PASSCRED is on). For the kernel's own
    /// messages this is pid 0, uid 0.
    public let credentials: NetlinkCredentials?

    public init(portID: UInt32, groups: UInt32 = 0, credentials: NetlinkCredentials? = nil) {
        self.portID = portID
        self.groups = groups
        self.credentials = credentials
    }

    /// True when the kernel itself sent the datagram (`nl_pid` 0).
    public var isKernel: Bool { portID == 0 }
}

/// One datagram read from a `NetlinkSocket`.
public struct NetlinkDatagram: Sendable {
    /// The bytes received (at most the socket's buffer size).
    public let bytes: [UInt8]
    /// Who sent it.
    public let sender: NetlinkSender
    /// True when the datagram was larger than the receive buffer and was cut (its tail is lost).
    public let truncated: Bool

    public init(bytes: [UInt8], sender: NetlinkSender, truncated: Bool = false) {
        self.bytes = bytes
        self.sender = sender
        self.truncated = truncated
    }
}

/// The outcome of one non-blocking `NetlinkSocket.receive()`.
public enum NetlinkReceive: Sendable {
    /// A datagram.
    case datagram(NetlinkDatagram)
    /// Nothing is queued (EAGAIN): the socket is drained.
    case drained
    /// The kernel dropped messages because the receive buffer overflowed (ENOBUFS). The socket keeps
    /// working, but events were lost: re-read everything the events stand for.
    case overflow
    /// The socket failed (any other errno).
    case failed(SystemError)
}

/// A non-blocking, close-on-exec raw netlink socket (netlink(7)), bound to a kernel-assigned port id.
///
/// The receive buffer is sized at creation (1 MiB by default; SO_RCVBUFFORCE when the process has
/// CAP_NET_ADMIN, so the `net.core.rmem_max` limit does not apply) and each `receive()` reads into one
/// reusable buffer. A receive-queue overflow is reported as `.overflow` — "events were lost" —
/// rather than as an error. The socket belongs to its creator's thread like the `EventLoop`.
public final class NetlinkSocket {
    /// The default receive buffer size requested from the kernel.
    public static let defaultReceiveBufferSize = 1 << 20
    /// The largest datagram `receive()` reads whole (larger ones are reported truncated).
    public static let defaultMaximumDatagramSize = 64 * 1024

    /// The protocol the socket was created for.
    public let netlinkProtocol: NetlinkProtocol
    /// The port id the kernel assigned at bind time (the `nl_pid` of what this socket sends).
    public let portID: UInt32
    /// The receive buffer size the kernel reports (it doubles the request for its bookkeeping).
    public let receiveBufferSize: Int
    private(set) var fd: Int32
    /// Left uninitialized: only what recvmsg writes is read back, so an idle socket's 64 KB never
    /// become resident (zero-filling them made three sockets cost 192 KB at idle).
    private let buffer: UnsafeMutableRawBufferPointer

    /// Creates, sizes and binds a socket.
    ///
    /// - Parameters:
    ///   - netlinkProtocol: the netlink family.
    ///   - groups: a legacy multicast group bitmask to join at bind time (bit n-1 = group n). Groups
    ///     above 32 need `join(group:)`.
    ///   - networkNamespaceOf: when given, the socket is created inside the network namespace of that
    ///     process (`/proc/PID/ns/net`, needs CAP_SYS_ADMIN); the calling thread stays in its own.
    ///   - receiveBufferSize: the SO_RCVBUF(FORCE) request.
    ///   - maximumDatagramSize: the size of the reusable receive buffer.
    public init(
        protocol netlinkProtocol: NetlinkProtocol, groups: UInt32 = 0, networkNamespaceOf pid: pid_t? = nil,
        receiveBufferSize: Int = NetlinkSocket.defaultReceiveBufferSize,
        maximumDatagramSize: Int = NetlinkSocket.defaultMaximumDatagramSize
    ) throws {
        let fd: Int32
        if let pid {
            fd = cshim_netlink_socket_in_netns(pid, netlinkProtocol.rawValue)
            guard fd >= 0 else { throw SystemError(call: "socket(AF_NETLINK) in the netns of pid \(pid)", errno: errno) }
        } else {
            fd = cshim_netlink_socket(netlinkProtocol.rawValue)
            guard fd >= 0 else { throw SystemError(call: "socket(AF_NETLINK, \(netlinkProtocol))", errno: errno) }
        }
        let size = cshim_netlink_set_receive_buffer(fd, Int32(clamping: receiveBufferSize))
        guard size >= 0 else {
            let saved = errno
            Glibc.close(fd)
            throw SystemError(call: "setsockopt(SO_RCVBUF)", errno: saved)
        }
        var port: UInt32 = 0
        guard cshim_netlink_bind(fd, groups, &port) == 0 else {
            let saved = errno
            Glibc.close(fd)
            throw SystemError(call: "bind(AF_NETLINK, groups 0x\(String(groups, radix: 16)))", errno: saved)
        }
        self.netlinkProtocol = netlinkProtocol
        self.fd = fd
        self.portID = port
        self.receiveBufferSize = Int(size)
        self.buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(maximumDatagramSize, 4096), alignment: 16)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// The descriptor, for `EventLoop.watch` (-1 once closed). The socket owns it.
    public var fileDescriptor: Int32 { fd }

    /// Whether `close()` was called.
    public var isClosed: Bool { fd < 0 }

    /// Closes the socket (idempotent). Unwatch it from any loop first.
    public func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// Joins multicast group `group` (NETLINK_ADD_MEMBERSHIP; group numbers start at 1).
    public func join(group: UInt32) throws {
        guard cshim_netlink_add_membership(fd, group) == 0 else {
            throw SystemError(call: "setsockopt(NETLINK_ADD_MEMBERSHIP, \(group))", errno: errno)
        }
    }

    /// Leaves multicast group `group`.
    public func leave(group: UInt32) throws {
        guard cshim_netlink_drop_membership(fd, group) == 0 else {
            throw SystemError(call: "setsockopt(NETLINK_DROP_MEMBERSHIP, \(group))", errno: errno)
        }
    }

    /// Turns SO_PASSCRED on or off: datagrams then carry the sender's credentials.
    public func setPassCredentials(_ on: Bool) throws {
        guard cshim_netlink_pass_credentials(fd, on ? 1 : 0) == 0 else {
            throw SystemError(call: "setsockopt(SO_PASSCRED)", errno: errno)
        }
    }

    /// Asks the kernel to check dump requests strictly (NETLINK_GET_STRICT_CHK); best effort.
    func enableStrictChecking() {
        _ = cshim_netlink_set_option(fd, CSHIM_NETLINK_OPT_GET_STRICT_CHK, 1)
    }

    /// Reads one datagram without blocking.
    public func receive() -> NetlinkReceive {
        guard fd >= 0 else { return .failed(SystemError(call: "recvmsg", errno: EBADF)) }
        var source = cshim_netlink_source()
        let n = cshim_netlink_recv(fd, buffer.baseAddress, buffer.count, &source)
        if n < 0 {
            let code = errno
            switch code {
            case EAGAIN, EWOULDBLOCK: return .drained
            case ENOBUFS: return .overflow
            default: return .failed(SystemError(call: "recvmsg", errno: code))
            }
        }
        let length = min(Int(n), buffer.count)
        let credentials = source.has_credentials != 0
            ? NetlinkCredentials(pid: source.pid, uid: source.uid, gid: source.gid) : nil
        let sender = NetlinkSender(portID: source.port_id, groups: source.groups, credentials: credentials)
        return .datagram(NetlinkDatagram(bytes: Array(UnsafeRawBufferPointer(rebasing: buffer[0..<length])), sender: sender,
                                         truncated: source.truncated != 0))
    }

    /// Sends one datagram: to the kernel (port 0, no groups) by default, to another socket by port
    /// id, or multicast to the legacy group bitmask `groups` (needs CAP_NET_ADMIN for most protocols).
    public func send(_ bytes: [UInt8], toPort port: UInt32 = 0, groups: UInt32 = 0) throws {
        let n = bytes.withUnsafeBytes { raw in
            cshim_netlink_send(fd, raw.baseAddress, raw.count, port, groups)
        }
        guard n >= 0 else { throw SystemError(call: "sendto(AF_NETLINK)", errno: errno) }
        guard n == bytes.count else { throw SystemError(call: "sendto(AF_NETLINK) (short)", errno: EMSGSIZE) }
    }

    /// Waits up to `timeout` for the socket to become readable (for synchronous request/response
    /// exchanges outside the event loop). Returns false on timeout.
    public func waitReadable(timeout: Duration) -> Bool {
        let ms = max(0, MonotonicInstant.clampedNanoseconds(of: timeout) / 1_000_000)
        return cshim_poll_readable(fd, Int32(clamping: ms)) > 0
    }
}
