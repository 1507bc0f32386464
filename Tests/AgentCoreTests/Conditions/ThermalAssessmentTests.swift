// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private func zone(_ type: String, _ tempC: Int, _ trips: [(ThermalTrip.Kind, Int)] = [],
                  name: String = "thermal_zone0") -> ThermalZone
{
    ThermalZone(name: name, type: type, temperatureMilli: tempC * 1000,
                trips: trips.map { ThermalTrip(kind: $0.0, temperatureMilli: $0.1 * 1000) })
}

private func assess(_ zones: [ThermalZone], fair: Int = 10, critical: Int = 5) -> ThermalAssessment {
    ThermalAssessment(zones: zones, fairMargin: fair, criticalMargin: critical)
}

private let package: [(ThermalTrip.Kind, Int)] = [(.passive, 90), (.hot, 100), (.critical, 105)]

@Suite("Thermal state from zones")
struct ThermalAssessmentTests {
    @Test func aCoolZoneIsNominal() {
        let result = assess([zone("x86_pkg_temp", 45, package)])
        #expect(result.state == .nominal)
        #expect(result.decidingZone?.summary == "x86_pkg_temp 45 °C, 45 °C below passive")
    }

    @Test func withinFairMarginOfThePassiveTripIsFair() {
        let result = assess([zone("x86_pkg_temp", 82, package)])
        #expect(result.state == .fair)
        #expect(result.description == "fair (x86_pkg_temp 82 °C, 8 °C below passive)")
        #expect(assess([zone("x86_pkg_temp", 80, package)]).state == .fair)  // exactly 10 °C below
        #expect(assess([zone("x86_pkg_temp", 79, package)]).state == .nominal)
    }

    @Test func atOrAboveAPassiveTripIsSerious() {
        #expect(assess([zone("x86_pkg_temp", 90, package)]).state == .serious)
        let result = assess([zone("x86_pkg_temp", 95, package)])
        #expect(result.state == .serious)
        #expect(result.decidingZone?.summary == "x86_pkg_temp 95 °C, 5 °C below hot")
    }

    @Test func atTheHotTripIsCritical() {
        let result = assess([zone("acpitz", 100, [(.hot, 100), (.critical, 120)])])
        #expect(result.state == .critical)
        #expect(result.decidingZone?.summary == "acpitz 100 °C, 20 °C below critical")
    }

    @Test func withinCriticalMarginOfTheCriticalTripIsCritical() {
        let trips: [(ThermalTrip.Kind, Int)] = [(.critical, 105)]
        #expect(assess([zone("soc", 100, trips)]).state == .critical)
        #expect(assess([zone("soc", 99, trips)]).state == .nominal)
        #expect(assess([zone("soc", 99, trips)], critical: 6).state == .critical)
        let above = assess([zone("soc", 107, trips)])
        #expect(above.decidingZone?.summary == "soc 107 °C, 2 °C above critical")
    }

    @Test func aCriticalOnlyZoneIsNeverFair() {
        // "fair" looks at passive and hot trips only.
        #expect(assess([zone("soc", 96, [(.critical, 105)])]).state == .nominal)
    }

    @Test func aZoneWithoutTripsIsNominal() {
        let result = assess([zone("iwlwifi_1", 120)])
        #expect(result.state == .nominal)
        #expect(result.decidingZone == nil)
        #expect(result.description == "nominal")
    }

    @Test func noZonesIsNominal() {
        #expect(assess([]) == ThermalAssessment(state: .nominal, decidingZone: nil))
    }

    @Test func placeholderTripsAtOrBelowZeroAreIgnored() {
        let placeholders: [(ThermalTrip.Kind, Int)] = [(.passive, 0), (.hot, -273), (.critical, 0)]
        #expect(assess([zone("acpitz", 50, placeholders)]).state == .nominal)
        #expect(assess([zone("acpitz", 50, placeholders)]).decidingZone == nil)
    }

    @Test func activeFanTripsNeverCount() {
        let fans: [(ThermalTrip.Kind, Int)] = [(.active, 40), (.active, 55)]
        #expect(assess([zone("acpitz", 60, fans)]).state == .nominal)
        // Next to a passive trip, the fan trips are not the "next trip" either.
        let mixed = assess([zone("acpitz", 60, fans + [(.passive, 95)])])
        #expect(mixed.decidingZone?.referenceTrip == .passive)
    }

    @Test func aZoneWithoutATemperatureIsIgnored() {
        let sleeping = ThermalZone(name: "thermal_zone1", type: "nvme", temperatureMilli: nil,
                                   trips: [ThermalTrip(kind: .passive, temperatureMilli: 1000)])
        #expect(assess([sleeping]).state == .nominal)
    }

    @Test func theWorstZoneWins() {
        let zones = [
            zone("acpitz", 50, [(.critical, 110)], name: "thermal_zone0"),
            zone("x86_pkg_temp", 93, package, name: "thermal_zone1"),
            zone("pch_skylake", 85, [(.passive, 90)], name: "thermal_zone2"),
        ]
        let result = assess(zones)
        #expect(result.state == .serious)
        #expect(result.decidingZone?.name == "thermal_zone1")
    }

    @Test func amongEqualStatesTheZoneClosestToItsTripDecides() {
        let zones = [
            zone("a", 82, [(.passive, 90)], name: "thermal_zone0"),
            zone("b", 86, [(.passive, 90)], name: "thermal_zone1"),
        ]
        #expect(assess(zones).decidingZone?.label == "b")
    }

    @Test func aFractionOfADegreeBelowATripReadsOneDegreeBelow() {
        let zone = ThermalZone(name: "thermal_zone0", type: "cpu", temperatureMilli: 89_700,
                               trips: [ThermalTrip(kind: .passive, temperatureMilli: 90_000)])
        let result = assess([zone])
        #expect(result.state == .fair)
        #expect(result.decidingZone?.summary == "cpu 90 °C, 1 °C below passive")
    }

    @Test func settingsMarginsApply() {
        var settings = AgentSettings.defaults
        settings.thermalFairMargin = 3
        let result = ThermalAssessment(zones: [zone("x86_pkg_temp", 82, package)], settings: settings)
        #expect(result.state == .nominal)
    }

    @Test func tripKindsParseAsTheKernelWritesThem() {
        #expect(ThermalTrip.Kind(attribute: "passive\n") == .passive)
        #expect(ThermalTrip.Kind(attribute: "critical") == .critical)
        #expect(ThermalTrip.Kind(attribute: "hot") == .hot)
        #expect(ThermalTrip.Kind(attribute: "active") == .active)
        #expect(ThermalTrip.Kind(attribute: "bogus") == .unknown)
    }
}
