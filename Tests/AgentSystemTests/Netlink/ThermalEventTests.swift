// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentSystem

/// Thermal events built byte by byte per include/uapi/linux/thermal.h (kernel 6.18):
/// enum thermal_genl_event: TZ_CREATE=1, TZ_DELETE=2, TZ_DISABLE=3, TZ_ENABLE=4, TZ_TRIP_UP=5,
/// TZ_TRIP_DOWN=6, TZ_TRIP_CHANGE=7, TZ_TRIP_ADD=8, TZ_TRIP_DELETE=9, CDEV_ADD=10, CDEV_DELETE=11,
/// CDEV_STATE_UPDATE=12, TZ_GOV_CHANGE=13, CPU_CAPABILITY_CHANGE=14, THRESHOLD_ADD=15,
/// THRESHOLD_DELETE=16, THRESHOLD_FLUSH=17, THRESHOLD_UP=18, THRESHOLD_DOWN=19;
/// enum thermal_genl_attr: TZ=1, TZ_ID=2, TZ_TEMP=3, TZ_TRIP=4, TZ_TRIP_ID=5, …, TZ_NAME=10, ….
@Suite("Thermal netlink events")
struct ThermalEventTests {
    static let family: UInt16 = 0x1c

    /// A trip-up event, 44 bytes, as thermal_genl_event_tz_trip_up() sends it:
    ///
    ///     nlmsghdr   len=44 type=0x1c (the family id) flags=0 seq=0 pid=0      bytes 0-15
    ///     genlmsghdr cmd=5 (THERMAL_GENL_EVENT_TZ_TRIP_UP) version=1 reserved=0 bytes 16-19
    ///     nlattr     len=8 type=2 (TZ_ID)      u32 3                          bytes 20-27
    ///     nlattr     len=8 type=5 (TZ_TRIP_ID) u32 1                          bytes 28-35
    ///     nlattr     len=8 type=3 (TZ_TEMP)    u32 95000 (m°C)                bytes 36-43
    static let tripUpFixture: [UInt8] = Bytes.message(type: family, [5, 1, 0, 0]
        + Bytes.attribute(2, Bytes.u32(3)) + Bytes.attribute(5, Bytes.u32(1)) + Bytes.attribute(3, Bytes.u32(95000)))

    private func event(_ bytes: [UInt8]) throws -> ThermalNetlinkEvent {
        let message = try #require(NetlinkMessage.split(bytes).messages.first)
        return try ThermalNetlinkEvent.parse(message)
    }

    @Test func aTripUpEventParses() throws {
        #expect(Self.tripUpFixture.count == 44)
        #expect(try event(Self.tripUpFixture) == .tripUp(zone: 3, trip: 1, temperature: 95000))
    }

    @Test func aTripDownEventWithANegativeTemperatureParses() throws {
        let bytes = Bytes.message(type: Self.family, [6, 1, 0, 0]
            + Bytes.attribute(2, Bytes.u32(0)) + Bytes.attribute(5, Bytes.u32(2)) + Bytes.attribute(3, Bytes.i32(-5000)))
        #expect(try event(bytes) == .tripDown(zone: 0, trip: 2, temperature: -5000))
    }

    @Test func zoneLifecycleEventsParse() throws {
        // TZ_CREATE carries TZ_NAME (string, "x86_pkg_temp\0" = 13 bytes, padded to 16) and TZ_ID.
        let create = Bytes.message(type: Self.family, [1, 1, 0, 0]
            + Bytes.attribute(10, Bytes.cString("x86_pkg_temp")) + Bytes.attribute(2, Bytes.u32(7)))
        #expect(try event(create) == .zoneCreated(zone: 7, name: "x86_pkg_temp"))
        for (command, expected) in [(UInt8(2), ThermalNetlinkEvent.zoneDeleted(zone: 7)), (3, .zoneDisabled(zone: 7)),
                                    (4, .zoneEnabled(zone: 7))] {
            let bytes = Bytes.message(type: Self.family, [command, 1, 0, 0] + Bytes.attribute(2, Bytes.u32(7)))
            #expect(try event(bytes) == expected)
        }
    }

    @Test func tripTableChangesAndThresholdsParse() throws {
        let change = Bytes.message(type: Self.family, [7, 1, 0, 0] + Bytes.attribute(2, Bytes.u32(1))
            + Bytes.attribute(5, Bytes.u32(4)) + Bytes.attribute(6, Bytes.u32(1)) + Bytes.attribute(7, Bytes.u32(80000)))
        #expect(try event(change) == .tripsChanged(zone: 1, trip: 4))
        // THRESHOLD_UP: TZ_ID, TZ_TEMP and TZ_PREV_TEMP (attribute 27, ignored).
        let threshold = Bytes.message(type: Self.family, [18, 1, 0, 0] + Bytes.attribute(2, Bytes.u32(1))
            + Bytes.attribute(3, Bytes.u32(70000)) + Bytes.attribute(27, Bytes.u32(69000)))
        #expect(try event(threshold) == .thresholdCrossed(zone: 1, up: true, temperature: 70000))
    }

    @Test func otherCommandsAreReportedByNumber() throws {
        // CDEV_STATE_UPDATE (12): CDEV_ID (15) and CDEV_CUR_STATE (16).
        let cdev = Bytes.message(type: Self.family, [12, 1, 0, 0] + Bytes.attribute(15, Bytes.u32(0))
            + Bytes.attribute(16, Bytes.u32(3)))
        #expect(try event(cdev) == .other(command: 12))
        #expect(try event(Bytes.message(type: Self.family, [99, 1, 0, 0])) == .other(command: 99))
    }

    @Test func brokenEventsAreErrorsNotCrashes() throws {
        let noZone = Bytes.message(type: Self.family, [5, 1, 0, 0] + Bytes.attribute(5, Bytes.u32(1)))
        #expect(throws: ThermalNetlinkEvent.ParseError.missingAttribute(2)) { try event(noZone) }
        let shortHeader = Bytes.message(type: Self.family, [5, 1])
        #expect(throws: ThermalNetlinkEvent.ParseError.truncated) { try event(shortHeader) }
        let badAttribute = Bytes.message(type: Self.family, [5, 1, 0, 0] + Bytes.u16(200) + Bytes.u16(2) + Bytes.u32(3))
        #expect(throws: ThermalNetlinkEvent.ParseError.malformedAttributes) { try event(badAttribute) }
        let shortZoneID = Bytes.message(type: Self.family, [2, 1, 0, 0] + Bytes.attribute(2, [1, 0]))
        #expect(throws: ThermalNetlinkEvent.ParseError.missingAttribute(2)) { try event(shortZoneID) }
    }
}
