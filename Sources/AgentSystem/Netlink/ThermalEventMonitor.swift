// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Watches the kernel's thermal generic-netlink events (family `thermal`, group `event`) on an
/// `EventLoop`.
///
/// `open` resolves the family through nlctrl and joins its event group. A kernel built without
/// CONFIG_THERMAL_NETLINK (no family, or no `event` group) is not an error: `open` returns
/// `.unavailable(reason)` and agentd falls back to reading /sys/class/thermal when work is due
/// (DESIGN §6: "sampled only while work runs or is due"). Only messages sent by the kernel
/// (`nl_pid` 0) of the resolved family are decoded. An overflow of the receive queue reaches the
/// handler as `.resync`.
public final class ThermalEventMonitor {
    /// What the handler receives.
    public enum Event: Equatable, Sendable {
        /// A decoded thermal event.
        case thermal(ThermalNetlinkEvent)
        /// Events were lost (receive-queue overflow): re-read every zone.
        case resync
    }

    /// The result of `open`.
    public enum OpenResult {
        /// The monitor is watching the event group.
        case opened(ThermalEventMonitor)
        /// The kernel offers no thermal events; the reason says why (for logs and `agentctl status`).
        case unavailable(reason: String)
    }

    /// Counters since the monitor was opened.
    public struct Statistics: Equatable, Sendable {
        /// Datagrams read.
        public var received = 0
        /// Events handed to the handler.
        public var delivered = 0
        /// Messages that could not be decoded.
        public var malformed = 0
        /// Messages not from the kernel or not of the thermal family.
        public var ignored = 0
        /// Receive-queue overflows (each one a `.resync`).
        public var overflows = 0
        /// Receive errors other than overflow.
        public var receiveErrors = 0

        public init() {}
    }

    /// The resolved family (id and groups).
    public let family: GenericNetlinkFamily
    /// The joined group id.
    public let groupID: UInt32
    /// Counters since opening.
    public private(set) var statistics = Statistics()

    private var subscription: NetlinkSubscription?
    private let handler: (Event) -> Void

    /// Resolves the thermal family, joins its `event` group and starts watching on `loop`.
    /// Throws only for real failures (no netlink socket, a failing join); a missing family or group is
    /// `.unavailable`.
    public static func open(loop: EventLoop, networkNamespaceOf pid: pid_t? = nil,
                            receiveBufferSize: Int = NetlinkSocket.defaultReceiveBufferSize,
                            handler: @escaping (Event) -> Void) throws -> OpenResult {
        let socket = try NetlinkSocket(protocol: .generic, networkNamespaceOf: pid, receiveBufferSize: receiveBufferSize)
        guard let family = try GenericNetlinkFamily.resolve(ThermalNetlinkEvent.familyName, on: socket) else {
            socket.close()
            return .unavailable(reason: "the kernel has no \"\(ThermalNetlinkEvent.familyName)\" generic netlink "
                                + "family (CONFIG_THERMAL_NETLINK is off)")
        }
        guard let group = family.multicastGroups[ThermalNetlinkEvent.eventGroupName] else {
            socket.close()
            return .unavailable(reason: "the \"\(family.name)\" generic netlink family has no "
                                + "\"\(ThermalNetlinkEvent.eventGroupName)\" multicast group")
        }
        do {
            try socket.join(group: group)
            return .opened(try ThermalEventMonitor(loop: loop, socket: socket, family: family, group: group,
                                                   handler: handler))
        } catch {
            socket.close()
            throw error
        }
    }

    private init(loop: EventLoop, socket: NetlinkSocket, family: GenericNetlinkFamily, group: UInt32,
                 handler: @escaping (Event) -> Void) throws {
        self.family = family
        self.groupID = group
        self.handler = handler
        subscription = try NetlinkSubscription(loop: loop, socket: socket) { [weak self] received in
            self?.receive(received)
        }
    }

    /// Stops watching and closes the socket (idempotent; safe from inside the handler).
    public func close() {
        subscription?.close()
    }

    /// Reads every queued datagram.
    public func drain() {
        subscription?.drain()
    }

    private var isClosed: Bool { subscription?.isClosed ?? true }

    private func receive(_ received: NetlinkSubscription.Received) {
        switch received {
        case .overflow:
            statistics.overflows += 1
            handler(.resync)
        case .failed:
            statistics.receiveErrors += 1
        case .datagram(let datagram):
            statistics.received += 1
            handle(datagram)
        }
    }

    private func handle(_ datagram: NetlinkDatagram) {
        guard datagram.sender.isKernel else {
            statistics.ignored += 1
            return
        }
        let batch = NetlinkMessage.split(datagram.bytes)
        if batch.isMalformed || datagram.truncated { statistics.malformed += 1 }
        for message in batch.messages {
            guard message.type == family.id else {
                statistics.ignored += 1
                continue
            }
            guard let event = try? ThermalNetlinkEvent.parse(message) else {
                statistics.malformed += 1
                continue
            }
            statistics.delivered += 1
            handler(.thermal(event))
            if isClosed { return }
        }
    }
}
