// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

@Suite("Netlink framing")
struct NetlinkFramingTests {
    @Test func twoMessagesInOneDatagramSplitAtAlignedOffsets() {
        // Message 1: 16-byte header + 5 payload bytes = nlmsg_len 21, padded to 24.
        // Message 2: NLMSG_DONE, header + 4-byte status.
        let first = Bytes.message(type: 24, flags: 0x2, sequence: 7, port: 99, [1, 2, 3, 4, 5]) + [0, 0, 0]
        let second = Bytes.message(type: NetlinkMessage.typeDone, flags: 0x2, sequence: 7, port: 99, Bytes.u32(0))
        let batch = NetlinkMessage.split(first + second)
        #expect(!batch.isMalformed)
        #expect(batch.messages.count == 2)
        #expect(batch.messages[0].type == 24 && batch.messages[0].sequence == 7 && batch.messages[0].portID == 99)
        #expect(Array(batch.messages[0].payload) == [1, 2, 3, 4, 5])
        #expect(batch.messages[0].flags.contains(.multi))
        #expect(batch.messages[1].type == NetlinkMessage.typeDone)
    }

    @Test func impossibleLengthsStopFramingAndKeepWhatCameBefore() {
        let good = Bytes.message(type: 24, [0, 0, 0, 0])
        let tooShort = Bytes.header(length: 8, type: 24)
        let pastEnd = Bytes.header(length: 400, type: 24)
        #expect(NetlinkMessage.split(good + tooShort) == .init(messages: NetlinkMessage.split(good).messages, isMalformed: true))
        #expect(NetlinkMessage.split(good + pastEnd).messages.count == 1)
        #expect(NetlinkMessage.split(good + pastEnd).isMalformed)
        #expect(NetlinkMessage.split(good + [1, 2]).isMalformed)
        #expect(NetlinkMessage.split([]).messages.isEmpty)
        #expect(!NetlinkMessage.split([]).isMalformed)
    }

    @Test func anErrorMessageCarriesANegativeErrno() {
        let error = Bytes.message(type: NetlinkMessage.typeError, sequence: 3, Bytes.i32(-ENOENT) + Bytes.header(length: 16, type: 16))
        let message = NetlinkMessage.split(error).messages[0]
        #expect(message.errorCode == -ENOENT)
        #expect(NetlinkMessage(type: 24).errorCode == nil)
    }

    @Test func encodingMatchesTheLayout() {
        let encoded = NetlinkMessage(type: 26, flags: [.request, .dump], sequence: 5, payload: [9, 9, 9]).encoded()
        #expect(encoded == Bytes.header(length: 19, type: 26, flags: 0x301, sequence: 5) + [9, 9, 9, 0])
    }

    @Test func attributesAreAlignedAndNestedOnesParse() {
        // A 5-byte string ("ab\0" is 3 bytes: len 7, padded to 8), a u16 (len 6, padded to 8), then a
        // nested attribute holding a u32 — with NLA_F_NESTED set on it.
        let nested = Bytes.attribute(9, Bytes.u32(0xdead_beef))
        var bytes = Bytes.attribute(1, Bytes.cString("ab"))
        bytes += Bytes.attribute(2, Bytes.u16(0x1234))
        bytes += Bytes.u16(UInt16(4 + nested.count)) + Bytes.u16(3 | NetlinkAttribute.nestedFlag) + nested
        let list = NetlinkAttributeList(parsing: bytes)
        #expect(!list.isMalformed)
        #expect(list.count == 3)
        #expect(list[type: 1]?.string == "ab")
        #expect(list[type: 1]?.payload.count == 3)
        #expect(list[type: 2]?.u16 == 0x1234)
        #expect(list[type: 2]?.u32 == nil)  // too short: nil, never a trap
        #expect(list[type: 3]?.isNestedFlagSet == true)
        #expect(list[type: 3]?.nested[type: 9]?.u32 == 0xdead_beef)
        #expect(NetlinkAttribute.encode(type: 1, string: "ab") == Bytes.attribute(1, Bytes.cString("ab")))
    }

    @Test func aBadAttributeLengthIsMalformed() {
        let good = Bytes.attribute(1, Bytes.u32(1))
        #expect(NetlinkAttributeList(parsing: good + Bytes.u16(2) + Bytes.u16(5)).isMalformed)
        #expect(NetlinkAttributeList(parsing: good + Bytes.u16(40) + Bytes.u16(5)).count == 1)
        #expect(!NetlinkAttributeList(parsing: good + [0, 0]).isMalformed)  // stray padding is tolerated
    }

    @Test func randomBytesNeverCrashAnyParser() {
        var random = SplitMix64(seed: 42)
        let seeds: [[UInt8]] = [
            ThermalEventTests.tripUpFixture, GenericNetlinkTests.thermalFamilyReply, RouteMessageTests.defaultRouteFixture,
        ]
        for round in 0..<20_000 {
            let bytes: [UInt8] = round % 2 == 0
                ? .random(count: Int(random.next() % 200), using: &random)
                : seeds[round % seeds.count].mutated(using: &random)
            for message in NetlinkMessage.split(bytes).messages {
                _ = try? ThermalNetlinkEvent.parse(message)
                _ = GenericNetlinkFamily.parse(message)
                _ = RouteMessage(message)?.isDefaultRoute
            }
            _ = NetlinkAttributeList(parsing: bytes).map { $0.nested.count }
            _ = GenericNetlinkFamily.reply(in: bytes, sequence: 1)
        }
    }
}
