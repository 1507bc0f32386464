// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

@Suite("Generic netlink")
struct GenericNetlinkTests {
    /// nlctrl's answer (CTRL_CMD_NEWFAMILY) describing a "thermal" family with id 0x1c, version 1 and
    /// two multicast groups. Layout (include/uapi/linux/genetlink.h):
    ///
    ///     nlmsghdr   len=96 type=0x10 (GENL_ID_CTRL) flags=0 seq=1 pid=0           16 bytes
    ///     genlmsghdr cmd=1 (CTRL_CMD_NEWFAMILY) version=2 reserved=0                4 bytes
    ///     nlattr     len=12 type=2 CTRL_ATTR_FAMILY_NAME "thermal\0"                12 bytes
    ///     nlattr     len=6  type=1 CTRL_ATTR_FAMILY_ID u16 0x1c + 2 padding         8 bytes
    ///     nlattr     len=8  type=3 CTRL_ATTR_VERSION u32 1                          8 bytes
    ///     nlattr     len=48 type=7 CTRL_ATTR_MCAST_GROUPS (an array of nests)       48 bytes
    ///       nlattr   len=24 type=1 (entry 1)
    ///         nlattr len=13 type=1 CTRL_ATTR_MCAST_GRP_NAME "sampling\0" + 3 pad
    ///         nlattr len=8  type=2 CTRL_ATTR_MCAST_GRP_ID u32 7           (entry is 4+16+8 = 28)
    ///       nlattr   len=24 type=2 (entry 2): NAME "event\0" (len 10 + 2 pad), ID u32 8
    ///
    /// (the exact lengths are computed by `Bytes.attribute`; the comment gives the shape.)
    static let thermalFamilyReply: [UInt8] = {
        let sampling = Bytes.attribute(1, Bytes.cString("sampling")) + Bytes.attribute(2, Bytes.u32(7))
        let event = Bytes.attribute(1, Bytes.cString("event")) + Bytes.attribute(2, Bytes.u32(8))
        let groups = Bytes.attribute(1, sampling) + Bytes.attribute(2, event)
        let body: [UInt8] = [1, 2, 0, 0]
            + Bytes.attribute(2, Bytes.cString("thermal"))
            + Bytes.attribute(1, Bytes.u16(0x1c))
            + Bytes.attribute(3, Bytes.u32(1))
            + Bytes.attribute(7, groups)
        return Bytes.message(type: 0x10, sequence: 1, body)
    }()

    @Test func aFamilyReplyParsesIntoIdAndGroups() throws {
        let message = try #require(NetlinkMessage.split(Self.thermalFamilyReply).messages.first)
        let family = try #require(GenericNetlinkFamily.parse(message))
        #expect(family == GenericNetlinkFamily(name: "thermal", id: 0x1c, version: 1,
                                               multicastGroups: ["sampling": 7, "event": 8]))
        #expect(GenericNetlinkFamily.reply(in: Self.thermalFamilyReply, sequence: 1) == .family(family))
        #expect(GenericNetlinkFamily.reply(in: Self.thermalFamilyReply, sequence: 2) == GenericNetlinkFamily.Reply.none)
    }

    @Test func anUnknownFamilyIsNotFoundAndOtherErrorsAreErrors() {
        let enoent = Bytes.message(type: NetlinkMessage.typeError, sequence: 4, Bytes.i32(-ENOENT) + [UInt8](repeating: 0, count: 16))
        #expect(GenericNetlinkFamily.reply(in: enoent, sequence: 4) == .notFound)
        let eperm = Bytes.message(type: NetlinkMessage.typeError, sequence: 4, Bytes.i32(-EPERM) + [UInt8](repeating: 0, count: 16))
        #expect(GenericNetlinkFamily.reply(in: eperm, sequence: 4) == .error(EPERM))
    }

    @Test func theRequestHasTheDocumentedLayout() {
        // nlmsghdr (len 32, type 0x10, NLM_F_REQUEST, seq 9) + genlmsghdr (cmd 3 GETFAMILY, version 1)
        // + CTRL_ATTR_FAMILY_NAME "nlctrl\0" (len 11, padded to 12).
        let expected = Bytes.header(length: 32, type: 0x10, flags: 1, sequence: 9) + [3, 1, 0, 0]
            + Bytes.attribute(2, Bytes.cString("nlctrl"))
        #expect(GenericNetlinkFamily.getFamilyRequest(name: "nlctrl", sequence: 9) == expected)
    }

    @Test func nlctrlResolvesItselfOnTheRealKernel() throws {
        let family = try #require(try GenericNetlinkFamily.resolve("nlctrl"))
        #expect(family.id == GenericNetlinkFamily.controllerID)
        #expect(family.name == "nlctrl")
        #expect(family.multicastGroups["notify"] != nil)
    }

    /// (Family names are at most 15 bytes, GENL_NAMSIZ - 1: a longer one is EINVAL, not ENOENT.)
    @Test func anAbsentFamilyResolvesToNil() throws {
        #expect(try GenericNetlinkFamily.resolve("agentd-nofam") == nil)
    }

    /// Live: the thermal family where the kernel has CONFIG_THERMAL_NETLINK; otherwise the monitor
    /// must say `.unavailable` and the test prints why.
    @Test func theThermalFamilyIsResolvedOrReportedUnavailable() throws {
        let family = try GenericNetlinkFamily.resolve(ThermalNetlinkEvent.familyName)
        let loop = try EventLoop()
        switch try ThermalEventMonitor.open(loop: loop, handler: { _ in }) {
        case .opened(let monitor):
            let resolved = try #require(family)
            #expect(monitor.family == resolved)
            #expect(monitor.groupID == resolved.multicastGroups[ThermalNetlinkEvent.eventGroupName])
            monitor.close()
            #expect(loop.watchCount == 0)
        case .unavailable(let reason):
            print("thermal netlink unavailable here: \(reason)")
            #expect(family == nil || family?.multicastGroups[ThermalNetlinkEvent.eventGroupName] == nil)
        }
    }
}

@Suite("ThermalEventMonitor")
struct ThermalEventMonitorTests {
    /// The thermal family is not network-namespace aware (no `netnsok`), so from a fresh network
    /// namespace nlctrl does not know it: the same situation as a kernel without
    /// CONFIG_THERMAL_NETLINK, and `open` must report it as unavailable rather than fail.
    @Test func aMissingFamilyIsUnavailableNotAFailure() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        let nlctrl = try GenericNetlinkFamily.resolve("nlctrl", networkNamespaceOf: namespace.pid)
        #expect(nlctrl?.id == GenericNetlinkFamily.controllerID)
        let thermal = try GenericNetlinkFamily.resolve(ThermalNetlinkEvent.familyName, networkNamespaceOf: namespace.pid)
        switch try ThermalEventMonitor.open(loop: loop, networkNamespaceOf: namespace.pid, handler: { _ in }) {
        case .opened(let monitor):
            // A kernel that made the family namespace-aware: then it must be the real one.
            #expect(thermal != nil)
            print("thermal netlink is visible inside a network namespace on this kernel")
            monitor.close()
        case .unavailable(let reason):
            #expect(thermal == nil)
            #expect(reason.contains("CONFIG_THERMAL_NETLINK"))
            #expect(loop.watchCount == 0)
        }
    }
}
