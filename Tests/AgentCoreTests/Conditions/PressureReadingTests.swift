// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

@Suite("PSI file parsing")
struct PressureReadingTests {
    @Test func bothLinesParse() throws {
        let reading = try #require(PressureReading(text: """
            some avg10=0.12 avg60=3.40 avg300=10.00 total=123456
            full avg10=0.00 avg60=1.50 avg300=2.25 total=6543

            """))
        #expect(reading.some == PressureReading.Line(avg10: 0.12, avg60: 3.4, avg300: 10, totalMicroseconds: 123_456))
        #expect(reading.full?.avg300 == 2.25)
        #expect(reading.full?.totalMicroseconds == 6543)
    }

    @Test func aMissingFullLineIsTolerated() throws {
        // cpu on kernels before 5.13.
        let reading = try #require(PressureReading(text: "some avg10=25.00 avg60=5.00 avg300=1.00 total=99\n"))
        #expect(reading.some.avg10 == 25)
        #expect(reading.full == nil)
    }

    @Test func unknownFieldsAndLinesAreIgnored() throws {
        let reading = try #require(PressureReading(text: """
            some avg10=1.00 avg60=2.00 avg300=3.00 avg3600=4.00 total=5
            partial avg10=9.00 avg60=9.00 avg300=9.00 total=9
            """))
        #expect(reading.some.avg300 == 3)
        #expect(reading.full == nil)
    }

    @Test(arguments: [
        "",
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
        "some avg10=0.00 avg60=0.00 total=0\n",
        "some avg10=x avg60=0.00 avg300=0.00 total=0\n",
        "some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n",
        "some avg10=nan avg60=0.00 avg300=0.00 total=0\n",
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=-4\n",
        "some garbage\n",
    ])
    func malformedFilesGiveNoReading(_ text: String) {
        #expect(PressureReading(text: text) == nil)
    }

    @Test func aMalformedFullLineLeavesFullUnknown() throws {
        let reading = try #require(PressureReading(bytes: Array("""
            some avg10=1.00 avg60=2.00 avg300=3.00 total=5
            full avg10=oops
            """.utf8)))
        #expect(reading.full == nil)
    }
}

@Suite("Platform profile")
struct PlatformProfileTests {
    @Test func onlyLowPowerIsLowPower() {
        #expect(PlatformProfile(attribute: "low-power\n").isLowPower)
        #expect(PlatformProfile(attribute: "  low-power  ").isLowPower)
        #expect(!PlatformProfile(attribute: "quiet\n").isLowPower)
        #expect(!PlatformProfile(attribute: "cool\n").isLowPower)
        #expect(!PlatformProfile(attribute: "balanced\n").isLowPower)
        #expect(!PlatformProfile(attribute: "").isLowPower)
        #expect(PlatformProfile(attribute: "performance\n").description == "performance")
    }
}
