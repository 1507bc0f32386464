// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Watches the kernel's device events (NETLINK_KOBJECT_UEVENT, multicast group 1) on an
/// `EventLoop` and hands the ones of interesting subsystems to a handler.
///
/// Each wakeup drains every queued datagram. A datagram becomes a `.uevent` when
/// - its sender passes the sender policy: the kernel itself (`nl_pid` 0), or a process whose
///   SCM_CREDENTIALS say uid 0 (SO_PASSCRED is on). Root-sent events are accepted because tests inject
///   uevents from userspace inside a private network namespace (`UeventInjector`). The kernel already
///   refuses any send on this protocol — multicast or unicast to our port — from a process without
///   CAP_NET_ADMIN; the uid check also turns away capable non-root daemons. Everything else is
///   counted in `statistics.rejectedSenders`;
/// - it parses (`Uevent.parse`): malformed datagrams and udevd's `libudev` re-broadcasts are counted
///   in `statistics.malformed`, never fatal;
/// - its SUBSYSTEM is in `subsystems` (nil: every subsystem); others are counted as `filtered`.
///
/// When the kernel reports that the receive queue overflowed (ENOBUFS) the handler gets `.resync`:
/// events were lost, re-read the state they stand for (for agentd: all of /sys/class/power_supply).
///
/// Everything runs on the loop thread; like the loop, the monitor is not `Sendable`.
public final class UeventMonitor {
    /// What the handler receives.
    public enum Event: Equatable, Sendable {
        /// A uevent that passed the sender policy and the subsystem filter.
        case uevent(Uevent)
        /// Events were lost (receive-queue overflow): re-read everything.
        case resync
    }

    /// Counters since the monitor was created.
    public struct Statistics: Equatable, Sendable {
        /// Datagrams read from the socket.
        public var received = 0
        /// Uevents handed to the handler.
        public var delivered = 0
        /// Well-formed uevents whose subsystem is not in the filter.
        public var filtered = 0
        /// Datagrams that were not kernel uevents (malformed, truncated, `libudev` format).
        public var malformed = 0
        /// Datagrams from senders the policy does not accept.
        public var rejectedSenders = 0
        /// Receive-queue overflows reported by the kernel (each one a `.resync`).
        public var overflows = 0
        /// Receive errors other than overflow.
        public var receiveErrors = 0

        public init() {}
    }

    /// The kernel's uevent multicast group (udevd re-broadcasts on group 2, which is not joined).
    public static let kernelGroup: UInt32 = 1

    /// The subsystems delivered (nil: all).
    public let subsystems: Set<String>?
    /// Counters since creation.
    public private(set) var statistics = Statistics()
    /// The last receive error other than overflow, if any.
    public private(set) var lastError: SystemError?

    private var subscription: NetlinkSubscription?
    private let handler: (Event) -> Void

    /// Opens a uevent socket bound to group 1 with SO_PASSCRED and watches it on `loop`.
    ///
    /// - Parameters:
    ///   - subsystems: SUBSYSTEM values to deliver, e.g. `["power_supply", "thermal"]`; nil for all.
    ///   - networkNamespaceOf: create the socket in that process's network namespace (tests).
    ///   - handler: called on the loop thread for each delivered event and for each overflow.
    public init(loop: EventLoop, subsystems: Set<String>?, networkNamespaceOf pid: pid_t? = nil,
                receiveBufferSize: Int = NetlinkSocket.defaultReceiveBufferSize,
                handler: @escaping (Event) -> Void) throws {
        let socket = try NetlinkSocket(protocol: .kobjectUevent, groups: 1 << (UeventMonitor.kernelGroup - 1),
                                       networkNamespaceOf: pid, receiveBufferSize: receiveBufferSize)
        try socket.setPassCredentials(true)
        self.subsystems = subsystems
        self.handler = handler
        self.portID = socket.portID
        self.receiveBufferSize = socket.receiveBufferSize
        subscription = try NetlinkSubscription(loop: loop, socket: socket) { [weak self] received in
            self?.receive(received)
        }
    }

    /// The port id of the monitor's socket (a unicast to it bypasses multicast group membership).
    public let portID: UInt32

    /// The receive buffer size the kernel granted.
    public let receiveBufferSize: Int

    /// Stops watching and closes the socket (idempotent; safe from inside the handler).
    public func close() {
        subscription?.close()
    }

    /// Whether the sender policy accepts a datagram from `sender` (see the type's documentation).
    public static func accepts(_ sender: NetlinkSender) -> Bool {
        sender.isKernel || sender.credentials?.uid == 0
    }

    /// Reads every queued datagram. Public for tests that drive the monitor without running the loop.
    public func drain() {
        subscription?.drain()
    }

    private func receive(_ received: NetlinkSubscription.Received) {
        switch received {
        case .overflow:
            statistics.overflows += 1
            handler(.resync)
        case .failed(let error):
            statistics.receiveErrors += 1
            lastError = error
        case .datagram(let datagram):
            statistics.received += 1
            handle(datagram)
        }
    }

    private func handle(_ datagram: NetlinkDatagram) {
        guard UeventMonitor.accepts(datagram.sender) else {
            statistics.rejectedSenders += 1
            return
        }
        guard !datagram.truncated, let event = try? Uevent.parse(datagram.bytes) else {
            statistics.malformed += 1
            return
        }
        if let subsystems {
            guard let subsystem = event.subsystem, subsystems.contains(subsystem) else {
                statistics.filtered += 1
                return
            }
        }
        statistics.delivered += 1
        handler(.uevent(event))
    }
}
