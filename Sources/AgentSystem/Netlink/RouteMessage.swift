// SPDX-License-Identifier: Apache-2.0
import Glibc

/// An rtnetlink route message (RTM_NEWROUTE / RTM_DELROUTE): `struct rtmsg` and the attributes
/// agentd looks at (rtnetlink(7)). Pure parsing, tested from byte arrays.
public struct RouteMessage: Equatable, Sendable {
    /// sizeof(struct rtmsg).
    public static let headerSize = 12

    // Message types.
    public static let typeNewLink: UInt16 = 16      // RTM_NEWLINK
    public static let typeDeleteLink: UInt16 = 17   // RTM_DELLINK
    public static let typeNewAddress: UInt16 = 20   // RTM_NEWADDR
    public static let typeDeleteAddress: UInt16 = 21 // RTM_DELADDR
    public static let typeNewRoute: UInt16 = 24     // RTM_NEWROUTE
    public static let typeDeleteRoute: UInt16 = 25  // RTM_DELROUTE
    public static let typeGetRoute: UInt16 = 26     // RTM_GETROUTE

    // rtm_table / RTA_TABLE.
    public static let tableMain: UInt32 = 254        // RT_TABLE_MAIN
    // rtm_type.
    public static let routeTypeUnicast: UInt8 = 1    // RTN_UNICAST
    // rtm_flags: next-hop flags copied into the route for single-path routes, and RTM_F_CLONED.
    public static let flagDead: UInt32 = 0x1         // RTNH_F_DEAD
    public static let flagLinkDown: UInt32 = 0x10    // RTNH_F_LINKDOWN
    public static let flagCloned: UInt32 = 0x200     // RTM_F_CLONED

    // Attributes.
    static let attributeOutputInterface: UInt16 = 4  // RTA_OIF (u32)
    static let attributeGateway: UInt16 = 5          // RTA_GATEWAY
    static let attributePriority: UInt16 = 6         // RTA_PRIORITY (u32 metric)
    static let attributeMultipath: UInt16 = 9        // RTA_MULTIPATH
    static let attributeTable: UInt16 = 15           // RTA_TABLE (u32)

    /// AF_INET or AF_INET6 (others exist: MPLS, bridge…).
    public let family: UInt8
    /// Destination prefix length: 0 for a default route.
    public let destinationLength: UInt8
    /// `rtm_tos`.
    public let tos: UInt8
    /// The routing table: RTA_TABLE when present (tables above 255), else `rtm_table`.
    public let table: UInt32
    /// `rtm_protocol` (boot, kernel, static, dhcp, ra…).
    public let routingProtocol: UInt8
    /// `rtm_scope`.
    public let scope: UInt8
    /// `rtm_type`: unicast, local, broadcast, unreachable, blackhole, prohibit…
    public let type: UInt8
    /// `rtm_flags`.
    public let flags: UInt32
    /// RTA_PRIORITY (the metric), 0 when absent.
    public let priority: UInt32
    /// RTA_OIF, 0 when absent.
    public let outputInterface: UInt32
    /// RTA_GATEWAY bytes (4 or 16), empty when absent.
    public let gateway: [UInt8]
    /// RTA_MULTIPATH bytes (the next hops of a multipath route), empty when absent.
    public let multipath: [UInt8]

    public init(family: UInt8, destinationLength: UInt8, tos: UInt8 = 0, table: UInt32, routingProtocol: UInt8 = 0,
                scope: UInt8 = 0, type: UInt8, flags: UInt32 = 0, priority: UInt32 = 0, outputInterface: UInt32 = 0,
                gateway: [UInt8] = [], multipath: [UInt8] = []) {
        self.family = family
        self.destinationLength = destinationLength
        self.tos = tos
        self.table = table
        self.routingProtocol = routingProtocol
        self.scope = scope
        self.type = type
        self.flags = flags
        self.priority = priority
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.multipath = multipath
    }

    /// Decodes the payload of an RTM_NEWROUTE/RTM_DELROUTE message; nil when it is shorter than
    /// `struct rtmsg`.
    public init?(payload: ArraySlice<UInt8>) {
        guard payload.count >= RouteMessage.headerSize,
              let family = NetlinkBytes.u8(payload, at: 0), let dstLen = NetlinkBytes.u8(payload, at: 1),
              let tos = NetlinkBytes.u8(payload, at: 3), let table = NetlinkBytes.u8(payload, at: 4),
              let proto = NetlinkBytes.u8(payload, at: 5), let scope = NetlinkBytes.u8(payload, at: 6),
              let type = NetlinkBytes.u8(payload, at: 7), let flags = NetlinkBytes.u32(payload, at: 8) else { return nil }
        let attributes = NetlinkAttributeList(parsing: payload.dropFirst(RouteMessage.headerSize))
        self.init(family: family, destinationLength: dstLen, tos: tos,
                  table: attributes[type: RouteMessage.attributeTable]?.u32 ?? UInt32(table),
                  routingProtocol: proto, scope: scope, type: type, flags: flags,
                  priority: attributes[type: RouteMessage.attributePriority]?.u32 ?? 0,
                  outputInterface: attributes[type: RouteMessage.attributeOutputInterface]?.u32 ?? 0,
                  gateway: Array(attributes[type: RouteMessage.attributeGateway]?.payload ?? []),
                  multipath: Array(attributes[type: RouteMessage.attributeMultipath]?.payload ?? []))
    }

    /// Decodes a route message; nil for other message types or a short payload.
    public init?(_ message: NetlinkMessage) {
        guard message.type == RouteMessage.typeNewRoute || message.type == RouteMessage.typeDeleteRoute else {
            return nil
        }
        self.init(payload: message.payload)
    }

    /// agentd's rule for "a default route exists" (DESIGN §6 "network"): an IPv4 or IPv6 route with
    /// destination length 0 in the main table, of type unicast, that is not a cached clone and whose
    /// next hop is neither dead nor link-down. Unreachable/blackhole/prohibit defaults (IPv6 keeps one
    /// in some tables) never count.
    public var isDefaultRoute: Bool {
        (family == UInt8(AF_INET) || family == UInt8(AF_INET6))
            && destinationLength == 0
            && table == RouteMessage.tableMain
            && type == RouteMessage.routeTypeUnicast
            && flags & (RouteMessage.flagCloned | RouteMessage.flagDead | RouteMessage.flagLinkDown) == 0
    }

    /// What identifies a route in the kernel's table, to match a deletion with its addition.
    public var key: Key {
        Key(family: family, table: table, tos: tos, priority: priority, outputInterface: outputInterface,
            gateway: gateway, multipath: multipath)
    }

    /// The identity of a route: family, table, TOS, metric and next hop(s).
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public let family: UInt8
        public let table: UInt32
        public let tos: UInt8
        public let priority: UInt32
        public let outputInterface: UInt32
        public let gateway: [UInt8]
        public let multipath: [UInt8]

        public var description: String {
            let name = family == UInt8(AF_INET) ? "inet" : family == UInt8(AF_INET6) ? "inet6" : "family \(family)"
            return "\(name) default table \(table) metric \(priority) oif \(outputInterface)"
                + (gateway.isEmpty ? "" : " via \(gateway.map { String($0, radix: 16) }.joined(separator: ":"))")
        }
    }

    /// Encodes an RTM_GETROUTE dump request for one address family.
    public static func dumpRequest(family: UInt8, sequence: UInt32) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: headerSize)
        payload[0] = family
        return NetlinkMessage(type: typeGetRoute, flags: [.request, .dump], sequence: sequence,
                              payload: payload[...]).encoded()
    }

    /// Encodes a route message (tests build kernel-like notifications with it).
    public func encoded(messageType: UInt16, sequence: UInt32 = 0, portID: UInt32 = 0,
                        flags: NetlinkMessage.Flags = []) -> [UInt8] {
        var payload: [UInt8] = [family, destinationLength, 0, tos, table < 256 ? UInt8(table) : 252,
                                routingProtocol, scope, type]
        NetlinkBytes.append(self.flags, to: &payload)
        payload += NetlinkAttribute.encode(type: RouteMessage.attributeTable, u32: table)
        if priority != 0 { payload += NetlinkAttribute.encode(type: RouteMessage.attributePriority, u32: priority) }
        if outputInterface != 0 {
            payload += NetlinkAttribute.encode(type: RouteMessage.attributeOutputInterface, u32: outputInterface)
        }
        if !gateway.isEmpty { payload += NetlinkAttribute.encode(type: RouteMessage.attributeGateway, payload: gateway) }
        if !multipath.isEmpty {
            payload += NetlinkAttribute.encode(type: RouteMessage.attributeMultipath, payload: multipath)
        }
        return NetlinkMessage(type: messageType, flags: flags, sequence: sequence, portID: portID,
                              payload: payload[...]).encoded()
    }
}
