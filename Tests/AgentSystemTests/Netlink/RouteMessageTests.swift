// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

@Suite("Route messages")
struct RouteMessageTests {
    /// An RTM_NEWROUTE for `default via 192.168.1.1 dev 2 metric 100` as the kernel sends it:
    ///
    ///     nlmsghdr len=68 type=24 (RTM_NEWROUTE)                                  16 bytes
    ///     rtmsg    family=2 (AF_INET) dst_len=0 src_len=0 tos=0 table=254 (main)
    ///              protocol=4 (static) scope=0 (universe) type=1 (unicast) flags=0 12 bytes
    ///     nlattr   len=8 type=15 RTA_TABLE u32 254                                8 bytes
    ///     nlattr   len=8 type=6  RTA_PRIORITY u32 100                             8 bytes
    ///     nlattr   len=8 type=5  RTA_GATEWAY 192.168.1.1                          8 bytes
    ///     nlattr   len=8 type=4  RTA_OIF u32 2                                    8 bytes
    ///     nlattr   len=8 type=1  RTA_DST is absent for a default route; here an
    ///              unrelated RTA_PREFSRC (type 7) instead                          8 bytes
    static let defaultRouteFixture: [UInt8] = route(family: 2, dstLen: 0, table: 254, type: 1)

    static func route(family: UInt8, dstLen: UInt8, table: UInt8, type: UInt8, flags: UInt32 = 0,
                      tableAttribute: UInt32? = 254, messageType: UInt16 = 24) -> [UInt8] {
        var body: [UInt8] = [family, dstLen, 0, 0, table, 4, 0, type] + Bytes.u32(flags)
        if let tableAttribute { body += Bytes.attribute(15, Bytes.u32(tableAttribute)) }
        body += Bytes.attribute(6, Bytes.u32(100))
        body += Bytes.attribute(5, [192, 168, 1, 1])
        body += Bytes.attribute(4, Bytes.u32(2))
        body += Bytes.attribute(7, [192, 168, 1, 20])
        return Bytes.message(type: messageType, body)
    }

    private func parse(_ bytes: [UInt8]) throws -> RouteMessage {
        let message = try #require(NetlinkMessage.split(bytes).messages.first)
        return try #require(RouteMessage(message))
    }

    @Test func aMainTableUnicastDefaultRouteIsADefaultRoute() throws {
        let route = try parse(Self.defaultRouteFixture)
        #expect(route.isDefaultRoute)
        #expect(route.family == UInt8(AF_INET) && route.table == 254 && route.priority == 100)
        #expect(route.gateway == [192, 168, 1, 1] && route.outputInterface == 2)
        #expect(route.key == RouteMessage.Key(family: 2, table: 254, tos: 0, priority: 100, outputInterface: 2,
                                              gateway: [192, 168, 1, 1], multipath: []))
    }

    @Test func otherRoutesAreNotDefaultRoutes() throws {
        // A /24, the local table, an unreachable default, a link-down default, a cloned entry,
        // a non-IP family.
        #expect(try !parse(Self.route(family: 2, dstLen: 24, table: 254, type: 1)).isDefaultRoute)
        #expect(try !parse(Self.route(family: 2, dstLen: 0, table: 255, type: 1, tableAttribute: 255)).isDefaultRoute)
        #expect(try !parse(Self.route(family: 10, dstLen: 0, table: 254, type: 7)).isDefaultRoute)
        #expect(try !parse(Self.route(family: 2, dstLen: 0, table: 254, type: 1, flags: 0x10)).isDefaultRoute)
        #expect(try !parse(Self.route(family: 10, dstLen: 0, table: 254, type: 1, flags: 0x200)).isDefaultRoute)
        #expect(try !parse(Self.route(family: 28, dstLen: 0, table: 254, type: 1)).isDefaultRoute)
        #expect(try parse(Self.route(family: 10, dstLen: 0, table: 254, type: 1)).isDefaultRoute)
    }

    @Test func rtaTableOverridesTheHeaderTable() throws {
        // Tables above 255 put RT_TABLE_COMPAT (252) in rtm_table and the real id in RTA_TABLE.
        #expect(try parse(Self.route(family: 2, dstLen: 0, table: 252, type: 1, tableAttribute: 1000)).table == 1000)
        #expect(try parse(Self.route(family: 2, dstLen: 0, table: 254, type: 1, tableAttribute: nil)).table == 254)
        #expect(try parse(Self.route(family: 2, dstLen: 0, table: 254, type: 1, tableAttribute: 100)).isDefaultRoute == false)
    }

    @Test func shortOrForeignMessagesAreNotRoutes() {
        #expect(RouteMessage(NetlinkMessage(type: 24, payload: [2, 0, 0])) == nil)
        #expect(RouteMessage(NetlinkMessage(type: 16, payload: ArraySlice(repeating: 0, count: 16))) == nil)
    }

    @Test func theDumpRequestHasTheDocumentedLayout() {
        // nlmsghdr len=28 type=26 (RTM_GETROUTE) flags=NLM_F_REQUEST|NLM_F_DUMP seq=3 + a zeroed rtmsg
        // with rtm_family set.
        let expected = Bytes.header(length: 28, type: 26, flags: 0x301, sequence: 3) + [10] + [UInt8](repeating: 0, count: 11)
        #expect(RouteMessage.dumpRequest(family: 10, sequence: 3) == expected)
    }

    @Test func encodingRoundTrips() throws {
        let route = RouteMessage(family: 10, destinationLength: 0, table: 254, type: 1, priority: 1024, outputInterface: 3)
        #expect(try parse(route.encoded(messageType: 25)) == route)
    }
}
