// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// systemd.time(7)'s calendar syntax beyond the common forms: zones, days from the month's end,
/// fractions of a second, the trailing weekday comma, every shorthand; and the normalized form
/// `agentctl calendar` prints (checked against systemd itself by CalendarSystemdAgreementTests).
struct CalendarSyntaxTests {
    let start = localTime(2026, 11, 30, 12, 0)  // Monday

    func normalized(_ text: String, zones: ZoneLookup = .none) -> String? {
        try? CalendarEventParser.analyze(text, zones: zones).get().normalizedText
    }

    /// A zone lookup that knows one zone, Europe/Berlin, as the 2026 fall-back rule.
    let berlin = ZoneLookup { $0 == "Europe/Berlin" ? berlinFall2026 : nil }

    @Test func theNormalizedFormIsSystemds() {
        let cases: [(String, String)] = [
            ("Wed, 17:48", "Wed *-*-* 17:48:00"), ("semi-annually", "*-01,07-01 00:00:00"),
            ("Sat,Thu,Mon..Wed,Sat..Sun", "Mon..Thu,Sat,Sun *-*-* 00:00:00"), ("*-02~01", "*-02~01 00:00:00"),
            ("05:40:23.4200004/3.1700005", "*-*-* 05:40:23.420000/3.170001"), ("12:00 utc", "*-*-* 12:00:00 UTC"),
            ("mon,fri *-1/2-1,3 *:30:45", "Mon,Fri *-01/2-01,03 *:30:45"), ("99-01-01", "1999-01-01 00:00:00"),
            ("*-*-1..2/5", "*-*-01 00:00:00"), ("@1700000000", "2023-11-14 22:13:20 UTC"),
            ("Mon..Sun 12:00", "*-*-* 12:00:00"), ("minutely", "*-*-* *:*:00"),
        ]
        for (text, form) in cases { #expect(normalized(text) == form, "\(text)") }
        #expect(normalized("weekly Europe/Berlin", zones: berlin) == "Mon *-*-* 00:00:00 Europe/Berlin")
    }

    @Test func aNamedZoneKeepsItsOwnTimeWhateverTheLocalZone() throws {
        let event = try CalendarEventParser.parse("*-*-* 09:00 Europe/Berlin", zones: berlin).get()
        // Local time here is UTC-5; the slot is 09:00 in Berlin (08:00 UTC in November, CET).
        let next = try #require(event.nextMatch(after: start, rule: FixedUTCOffset(seconds: -5 * 3600)))
        #expect(show(next) == "Tue 2026-12-01 08:00:00 +00:00")
        let utc = try CalendarEventParser.parse("12:00 UTC").get()
        #expect(show(try #require(utc.nextMatch(after: start, rule: FixedUTCOffset(seconds: 3600)))) == "Tue 2026-12-01 12:00:00 +00:00")
    }

    @Test func tildeCountsDaysFromTheMonthsEnd() throws {
        #expect(try nextMatches("*-02~01", after: start, count: 2) == [
            "Sun 2027-02-28 00:00:00 +00:00", "Tue 2028-02-29 00:00:00 +00:00"])
        // The last Monday of May.
        #expect(try nextMatches("Mon *-05~07/1", after: start, count: 2) == [
            "Mon 2027-05-31 00:00:00 +00:00", "Mon 2028-05-29 00:00:00 +00:00"])
    }

    @Test func fractionsOfASecondMatchToTheMicrosecond() throws {
        let event = try CalendarEventParser.parse("*:*:00/0.25").get()
        let next = try #require(event.nextMatch(after: start, rule: FixedUTCOffset.utc))
        #expect(next.seconds - start.seconds == 0.25)
    }

    @Test func whatSystemdRefusesIsRefused() {
        for text in ["Mon..", "Mon...Fri", "Sat..Mon", "*-*-31/2", "*/2", "*:*/5", "*:59/1", "Mon,,Fri", "*~29",
                     "*-02~01-01", "12:00 Nowhere/Zone", "*,5:00", "+5:00", ""] {
            #expect(normalized(text) == nil, "\(text)")
        }
    }
}

/// A zone file's rules as the shell hands them in: a TZif table, then its POSIX footer.
struct ZoneRulesTests {
    @Test func thePosixFooterPlacesTransitionsForAnyYear() throws {
        let rule = try #require(PosixZoneRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        // 2099: last Sunday of March is the 29th, of October the 25th.
        #expect(rule.utcOffset(at: utcSeconds(2099, 3, 29, 0, 59)) == 3600)
        #expect(rule.utcOffset(at: utcSeconds(2099, 3, 29, 1, 0)) == 7200)
        #expect(rule.utcOffset(at: utcSeconds(2099, 10, 25, 0, 59)) == 7200)
        #expect(rule.utcOffset(at: utcSeconds(2099, 10, 25, 1, 0)) == 3600)
        let south = try #require(PosixZoneRule("NZST-12NZDT,M9.5.0,M4.1.0/3"))
        #expect(south.utcOffset(at: utcSeconds(2090, 1, 15, 0, 0)) == 13 * 3600)
        #expect(south.utcOffset(at: utcSeconds(2090, 7, 15, 0, 0)) == 12 * 3600)
        #expect(PosixZoneRule("<+0530>-5:30")?.utcOffset(at: 0) == 19_800)
    }

    @Test func aTZifFileIsReadOrRefused() throws {
        // Version 1, one type (UTC+2), no transitions.
        var bytes = Array("TZif".utf8) + [0] + [UInt8](repeating: 0, count: 15)
        for count: UInt32 in [0, 0, 0, 0, 1, 4] { bytes += withUnsafeBytes(of: count.bigEndian, Array.init) }
        bytes += withUnsafeBytes(of: Int32(7200).bigEndian, Array.init) + [0, 0] + Array("EET\0".utf8)
        #expect(ZoneRules(tzif: bytes)?.utcOffset(at: 1_800_000_000) == 7200)
        #expect(ZoneRules(tzif: Array(bytes.prefix(46))) == nil)
        #expect(ZoneRules(tzif: Array("not a zone".utf8)) == nil)
    }
}
