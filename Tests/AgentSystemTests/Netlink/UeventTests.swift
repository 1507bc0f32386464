// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentSystem

@Suite("Uevent parsing")
struct UeventTests {
    static let kernelPowerSupply: [UInt8] = Array((
        "change@/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC\0"
        + "ACTION=change\0DEVPATH=/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC\0"
        + "SUBSYSTEM=power_supply\0POWER_SUPPLY_NAME=AC\0POWER_SUPPLY_TYPE=Mains\0POWER_SUPPLY_ONLINE=1\0"
        + "SEQNUM=4711\0").utf8)

    @Test func aKernelPowerSupplyEventParses() throws {
        let event = try Uevent.parse(Self.kernelPowerSupply)
        #expect(event.action == "change")
        #expect(event.devpath == "/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC")
        #expect(event.subsystem == "power_supply")
        #expect(event["POWER_SUPPLY_NAME"] == "AC")
        #expect(event["POWER_SUPPLY_ONLINE"] == "1")
        #expect(event["SEQNUM"] == "4711")
        #expect(event.properties.count == 7)
    }

    @Test func aValueMayContainEqualsSignsAndBeEmpty() throws {
        let event = try Uevent.parse(Array("add@/devices/x\0SUBSYSTEM=thermal\0MODALIAS=a=b=c\0EMPTY=\0".utf8))
        #expect(event["MODALIAS"] == "a=b=c")
        #expect(event["EMPTY"] == "")
        #expect(event.subsystem == "thermal")
    }

    @Test func aHeaderWithoutPropertiesAndDoubledNULsAreAccepted() throws {
        let bare = try Uevent.parse(Array("remove@/devices/y".utf8))
        #expect(bare.action == "remove" && bare.properties.isEmpty && bare.subsystem == nil)
        let doubled = try Uevent.parse(Array("change@/d\0\0SUBSYSTEM=net\0\0".utf8))
        #expect(doubled.subsystem == "net")
    }

    @Test func invalidUTF8InAValueIsReplacedNotFatal() throws {
        let bytes = Array("change@/devices/z\0POWER_SUPPLY_MODEL_NAME=".utf8) + [0xff, 0xfe, 0x41, 0]
        let event = try Uevent.parse(bytes)
        #expect(event["POWER_SUPPLY_MODEL_NAME"] == "\u{FFFD}\u{FFFD}A")
    }

    @Test func udevMonitorMessagesAreRejected() {
        let udev = Array("libudev".utf8) + [0, 0xfe, 0xed, 0xca, 0xfe, 0x28, 0, 0, 0] + Self.kernelPowerSupply
        #expect(throws: Uevent.ParseError.libudevFormat) { try Uevent.parse(udev) }
    }

    @Test func malformedDatagramsAreRejected() {
        let cases: [([UInt8], Uevent.ParseError)] = [
            ([], .empty),
            ([0, 0, 0], .badHeader),
            (Array("no at sign\0SUBSYSTEM=x\0".utf8), .badHeader),
            (Array("@/devices/x\0".utf8), .badHeader),
            (Array("change@devices/x\0".utf8), .badHeader),
            (Array("change@\0".utf8), .badHeader),
            (Array("ch ange@/x\0".utf8), .badHeader),
            (Array("change@/x\0SUBSYSTEM\0".utf8), .badProperty(index: 1)),
            (Array("change@/x\0A=1\0=value\0".utf8), .badProperty(index: 2)),
            ([UInt8](repeating: 0x41, count: Uevent.maximumSize + 1), .tooLarge(Uevent.maximumSize + 1)),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected) { try Uevent.parse(bytes) }
        }
    }

    @Test func encodingRoundTrips() throws {
        let event = UeventInjector.powerSupplyChange(name: "BAT1", online: false)
        let bytes = event.encoded()
        #expect(bytes.starts(with: Array("change@/devices/".utf8)))
        #expect(bytes.last == 0)
        #expect(try Uevent.parse(bytes) == event)
        // ACTION and DEVPATH come first, as the kernel writes them.
        let fields = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(fields[1] == "ACTION=change")
        #expect(fields[2].hasPrefix("DEVPATH=/devices/"))
    }

    @Test func tenThousandMutatedAndRandomDatagramsNeverCrash() {
        var random = SplitMix64(seed: 0x5eed)
        var parsed = 0
        var rejected = 0
        for round in 0..<10_000 {
            let input: [UInt8] = round % 3 == 0
                ? .random(count: Int(random.next() % 300), using: &random)
                : Self.kernelPowerSupply.mutated(using: &random)
            switch Result(catching: { () throws(Uevent.ParseError) in try Uevent.parse(input) }) {
            case .success(let event):
                parsed += 1
                #expect(!event.action.isEmpty && event.devpath.hasPrefix("/"))
            case .failure:
                rejected += 1
            }
        }
        #expect(parsed + rejected == 10_000)
        #expect(parsed > 0 && rejected > 0)
    }
}
