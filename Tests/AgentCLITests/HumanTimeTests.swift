// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCLI

/// Times as people read them. The clock is Monday 2026-11-30 14:30:00 at UTC+01:00 (Fixture).
@Suite struct HumanTimeTests {
    private let now = Fixture.now

    @Test func spansUseAtMostTwoUnits() {
        #expect(HumanTime.span(seconds: 0) == "0 s")
        #expect(HumanTime.span(seconds: 42) == "42 s")
        #expect(HumanTime.span(seconds: 200) == "3 min 20 s")
        #expect(HumanTime.span(seconds: 240) == "4 min")
        #expect(HumanTime.span(seconds: 7500) == "2 h 5 min")
        #expect(HumanTime.span(seconds: 7200) == "2 h")
        #expect(HumanTime.span(seconds: 3 * 86_400) == "3 d")
        #expect(HumanTime.span(seconds: 3 * 86_400 + 7200 + 59) == "3 d 2 h")
        #expect(HumanTime.span(seconds: -5) == "0 s")
    }

    @Test func durationsShowTenthsUnderAMinute() {
        #expect(HumanTime.duration(milliseconds: 0) == "0.0 s")
        #expect(HumanTime.duration(milliseconds: 400) == "0.4 s")
        #expect(HumanTime.duration(milliseconds: 12_049) == "12.0 s")
        #expect(HumanTime.duration(milliseconds: 59_999) == "59.9 s")
        #expect(HumanTime.duration(milliseconds: 200_000) == "3 min 20 s")
        #expect(HumanTime.duration(milliseconds: 3_723_000) == "1 h 2 min")
    }

    @Test func agoAndUntilUseTheLargestWholeUnit() {
        #expect(HumanTime.ago(seconds: 3) == "just now")
        #expect(HumanTime.ago(seconds: 42) == "42 s ago")
        #expect(HumanTime.ago(seconds: 299) == "4 min ago")
        #expect(HumanTime.ago(seconds: 2 * 3600 + 1800) == "2 h ago")
        #expect(HumanTime.ago(seconds: 3 * 86_400) == "3 d ago")
        #expect(HumanTime.until(seconds: 250) == "in 4 min")
        #expect(HumanTime.until(seconds: 30) == "in 30 s")
        #expect(HumanTime.until(seconds: 0) == "now")
    }

    @Test func clockTimesAreTimeOfDayTodayWeekdayWithinAWeekDateOtherwise() {
        let clock = Fixture.clock
        #expect(HumanTime.clockTime(now, clock: clock) == "14:30")
        #expect(HumanTime.clockTime(now - 14 * 3600 - 25 * 60, clock: clock) == "00:05")
        #expect(HumanTime.clockTime(now - 14 * 3600 - 31 * 60, clock: clock) == "Sun 23:59")
        #expect(HumanTime.clockTime(now - 6 * 86_400, clock: clock) == "Tue 14:30")
        #expect(HumanTime.clockTime(now - 7 * 86_400, clock: clock) == "2026-11-23 14:30")
        #expect(HumanTime.clockTime(now + 9 * 3600 + 29 * 60, clock: clock) == "23:59")
        #expect(HumanTime.clockTime(now + 9 * 3600 + 30 * 60, clock: clock) == "Tue 00:00")
        #expect(HumanTime.clockTime(now + 30 * 86_400, clock: clock) == "2026-12-30 14:30")
    }

    @Test func theZoneDecidesWhatTodayIs() {
        // 23:30 UTC on Sunday is already Monday 00:30 at UTC+01:00, and still Sunday at UTC-05:00.
        let instant = now - 14 * 3600
        let east = DisplayClock.fixed(milliseconds: now * 1000, zone: .fixedOffset(seconds: 3600))
        let west = DisplayClock.fixed(milliseconds: now * 1000, zone: .fixedOffset(seconds: -5 * 3600))
        #expect(HumanTime.clockTime(instant, clock: east) == "00:30")
        #expect(HumanTime.clockTime(instant, clock: west) == "Sun 18:30")
    }

    @Test func momentsAreRelativeWhileRecentAndClockTimesAfter() {
        let clock = Fixture.clock
        #expect(HumanTime.moment(now - 2, clock: clock) == "just now")
        #expect(HumanTime.moment(now - 42, clock: clock) == "42 s ago")
        #expect(HumanTime.moment(now - 2 * 3600 - 300, clock: clock) == "2 h ago")
        #expect(HumanTime.moment(now - 3 * 3600, clock: clock) == "11:30")
        #expect(HumanTime.moment(now - 2 * 86_400, clock: clock) == "Sat 14:30")
        #expect(HumanTime.moment(now + 1, clock: clock) == "just now")
        #expect(HumanTime.moment(now + 600, clock: clock) == "14:40")
    }

    @Test func theSystemZoneIsUsedThroughLocaltime() {
        // Whatever the machine's zone, a time of day is five characters and today's date has no weekday.
        let text = HumanTime.clockTime(DisplayClock.system.nowSeconds, clock: .system)
        #expect(text.count == 5)
        #expect(text.dropFirst(2).first == ":")
    }

    @Test func daysFromCivilMatchesTheCalendar() {
        #expect(DisplayClock.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(DisplayClock.daysFromCivil(year: 2026, month: 11, day: 30) == Fixture.now / 86_400)
        #expect(DisplayClock.daysFromCivil(year: 2000, month: 3, day: 1) - DisplayClock.daysFromCivil(year: 2000, month: 2, day: 28) == 2)
        #expect(DisplayClock.daysFromCivil(year: 1969, month: 12, day: 31) == -1)
    }
}
