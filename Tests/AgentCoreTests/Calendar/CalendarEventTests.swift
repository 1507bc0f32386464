// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `Schedule=` calendar events (systemd.time(7)): each form's next matches, several steps on.
struct CalendarEventTests {
    /// Monday 2026-11-30 08:00:30 UTC.
    let start = localTime(2026, 11, 30, 8, 0, 30)

    @Test func minutelyHourlyDailyMatchTheirBoundaries() throws {
        #expect(try nextMatches("minutely", after: start) == [
            "Mon 2026-11-30 08:01:00 +00:00", "Mon 2026-11-30 08:02:00 +00:00", "Mon 2026-11-30 08:03:00 +00:00"])
        #expect(try nextMatches("hourly", after: start) == [
            "Mon 2026-11-30 09:00:00 +00:00", "Mon 2026-11-30 10:00:00 +00:00", "Mon 2026-11-30 11:00:00 +00:00"])
        #expect(try nextMatches("daily", after: start) == [
            "Tue 2026-12-01 00:00:00 +00:00", "Wed 2026-12-02 00:00:00 +00:00", "Thu 2026-12-03 00:00:00 +00:00"])
    }

    @Test func weeklyMonthlyYearlyAndTheLongerShorthands() throws {
        #expect(try nextMatches("weekly", after: start, count: 2) == [
            "Mon 2026-12-07 00:00:00 +00:00", "Mon 2026-12-14 00:00:00 +00:00"])
        #expect(try nextMatches("monthly", after: start, count: 2) == [
            "Tue 2026-12-01 00:00:00 +00:00", "Fri 2027-01-01 00:00:00 +00:00"])
        #expect(try nextMatches("yearly", after: start, count: 2) == [
            "Fri 2027-01-01 00:00:00 +00:00", "Sat 2028-01-01 00:00:00 +00:00"])
        #expect(try nextMatches("annually", after: start, count: 1) == ["Fri 2027-01-01 00:00:00 +00:00"])
        #expect(try nextMatches("quarterly", after: start, count: 3) == [
            "Fri 2027-01-01 00:00:00 +00:00", "Thu 2027-04-01 00:00:00 +00:00", "Thu 2027-07-01 00:00:00 +00:00"])
        #expect(try nextMatches("semiannually", after: start, count: 2) == [
            "Fri 2027-01-01 00:00:00 +00:00", "Thu 2027-07-01 00:00:00 +00:00"])
    }

    @Test func aShorthandMayNameItsTime() throws {
        #expect(try nextMatches("daily 03:00", after: start, count: 2) == [
            "Tue 2026-12-01 03:00:00 +00:00", "Wed 2026-12-02 03:00:00 +00:00"])
        #expect(try nextMatches("weekly 03:00", after: start, count: 1) == ["Mon 2026-12-07 03:00:00 +00:00"])
        #expect(try nextMatches("monthly 04:00", after: start, count: 1) == ["Tue 2026-12-01 04:00:00 +00:00"])
    }

    @Test func weekdayRangesSkipTheWeekend() throws {
        // Friday 2026-12-04 10:00: past Friday's slot.
        let friday = localTime(2026, 12, 4, 10, 0)
        #expect(try nextMatches("Mon..Fri 09:00", after: friday, count: 3) == [
            "Mon 2026-12-07 09:00:00 +00:00", "Tue 2026-12-08 09:00:00 +00:00", "Wed 2026-12-09 09:00:00 +00:00"])
        #expect(try nextMatches("Mon-Fri 09:00", after: friday, count: 1) == ["Mon 2026-12-07 09:00:00 +00:00"])
        // A range does not wrap the week (systemd refuses Sat..Mon); a list does it.
        #expect(try nextMatches("Sat,Sun,Mon 09:00", after: friday, count: 3) == [
            "Sat 2026-12-05 09:00:00 +00:00", "Sun 2026-12-06 09:00:00 +00:00", "Mon 2026-12-07 09:00:00 +00:00"])
    }

    @Test func oneWeekdayAtATime() throws {
        #expect(try nextMatches("Sun 03:10", after: start, count: 2) == [
            "Sun 2026-12-06 03:10:00 +00:00", "Sun 2026-12-13 03:10:00 +00:00"])
        #expect(try nextMatches("sunday 3:10", after: start, count: 1) == ["Sun 2026-12-06 03:10:00 +00:00"])
        // A weekday alone is midnight of that day.
        #expect(try nextMatches("Wed", after: start, count: 1) == ["Wed 2026-12-02 00:00:00 +00:00"])
    }

    @Test func aDayOfTheMonth() throws {
        #expect(try nextMatches("*-*-01 04:00", after: start, count: 3) == [
            "Tue 2026-12-01 04:00:00 +00:00", "Fri 2027-01-01 04:00:00 +00:00", "Mon 2027-02-01 04:00:00 +00:00"])
        // Day 31 skips the months without one.
        #expect(try nextMatches("*-*-31 12:00", after: start, count: 3) == [
            "Thu 2026-12-31 12:00:00 +00:00", "Sun 2027-01-31 12:00:00 +00:00", "Wed 2027-03-31 12:00:00 +00:00"])
        #expect(try nextMatches("*-02-29 12:00", after: start, count: 1) == ["Tue 2028-02-29 12:00:00 +00:00"])
        #expect(try nextMatches("12-24 18:00", after: start, count: 1) == ["Thu 2026-12-24 18:00:00 +00:00"])
    }

    @Test func repetitionStartsAtItsStartAndSteps() throws {
        #expect(try nextMatches("*-*-* 00/6:00", after: start, count: 4) == [
            "Mon 2026-11-30 12:00:00 +00:00", "Mon 2026-11-30 18:00:00 +00:00",
            "Tue 2026-12-01 00:00:00 +00:00", "Tue 2026-12-01 06:00:00 +00:00"])
        #expect(try nextMatches("*:0/15", after: start, count: 3) == [
            "Mon 2026-11-30 08:15:00 +00:00", "Mon 2026-11-30 08:30:00 +00:00", "Mon 2026-11-30 08:45:00 +00:00"])
        #expect(try nextMatches("*-*-1/10 00:00", after: start, count: 4) == [
            "Tue 2026-12-01 00:00:00 +00:00", "Fri 2026-12-11 00:00:00 +00:00",
            "Mon 2026-12-21 00:00:00 +00:00", "Thu 2026-12-31 00:00:00 +00:00"])
        #expect(try nextMatches("8..12/2:30", after: start, count: 4) == [
            "Mon 2026-11-30 08:30:00 +00:00", "Mon 2026-11-30 10:30:00 +00:00",
            "Mon 2026-11-30 12:30:00 +00:00", "Tue 2026-12-01 08:30:00 +00:00"])
    }

    @Test func listsAndRanges() throws {
        #expect(try nextMatches("Mon,Wed 12:00", after: start, count: 3) == [
            "Mon 2026-11-30 12:00:00 +00:00", "Wed 2026-12-02 12:00:00 +00:00", "Mon 2026-12-07 12:00:00 +00:00"])
        #expect(try nextMatches("*-*-1,15 06:00", after: start, count: 3) == [
            "Tue 2026-12-01 06:00:00 +00:00", "Tue 2026-12-15 06:00:00 +00:00", "Fri 2027-01-01 06:00:00 +00:00"])
        #expect(try nextMatches("9..17:00", after: start, count: 3) == [
            "Mon 2026-11-30 09:00:00 +00:00", "Mon 2026-11-30 10:00:00 +00:00", "Mon 2026-11-30 11:00:00 +00:00"])
        #expect(try nextMatches("*-*-* 16..17:00", after: localTime(2026, 11, 30, 17, 30), count: 2) == [
            "Tue 2026-12-01 16:00:00 +00:00", "Tue 2026-12-01 17:00:00 +00:00"])
    }

    @Test func secondsAreOptional() throws {
        #expect(try nextMatches("03:10:30", after: start, count: 2) == [
            "Tue 2026-12-01 03:10:30 +00:00", "Wed 2026-12-02 03:10:30 +00:00"])
        #expect(try nextMatches("*:*:0/20", after: start, count: 3) == [
            "Mon 2026-11-30 08:00:40 +00:00", "Mon 2026-11-30 08:01:00 +00:00", "Mon 2026-11-30 08:01:20 +00:00"])
    }

    @Test func yearsLimitTheMatchesAndAPastYearNeverMatches() throws {
        #expect(try nextMatches("2027-*-01 00:00", after: start, count: 2) == [
            "Fri 2027-01-01 00:00:00 +00:00", "Mon 2027-02-01 00:00:00 +00:00"])
        let past = try CalendarEventParser.parse("2025-01-01 00:00").get()
        #expect(past.nextMatch(after: start, rule: FixedUTCOffset.utc) == nil)
    }

    @Test func theNextMatchIsStrictlyAfterTheGivenTime() throws {
        let event = try CalendarEventParser.parse("daily 03:00").get()
        let slot = localTime(2026, 12, 1, 3, 0)
        #expect(event.nextMatch(after: slot - .seconds(0.5), rule: FixedUTCOffset.utc) == slot)
        #expect(event.nextMatch(after: slot, rule: FixedUTCOffset.utc) == slot + .seconds(86_400))
    }

    @Test func localTimeFollowsTheOffset() throws {
        let tokyo = FixedUTCOffset(seconds: 9 * 3600)
        // 08:00:30 UTC is 17:00:30 in Tokyo: the next 09:00 there is 00:00 UTC.
        #expect(try nextMatches("Mon..Fri 09:00", after: start, count: 1, tokyo) == ["Tue 2026-12-01 09:00:00 +09:00"])
        let event = try CalendarEventParser.parse("Mon..Fri 09:00").get()
        #expect(event.nextMatch(after: start, rule: tokyo) == SchedulerTime(seconds: Double(utcSeconds(2026, 12, 1, 0, 0))))
    }

    /// A date decades ahead is found, up to the parser's last year (2199), and never-matching
    /// events end the search: `Schedule=2060-01-01` once loaded and never ran.
    @Test func farFutureDatesAreFoundUpToTheParsersLastYear() throws {
        #expect(try nextMatches("2060-01-01", after: start, count: 1) == ["Thu 2060-01-01 00:00:00 +00:00"])
        #expect(try nextMatches("2199-12-31 23:59:59", after: start, count: 1) == ["Tue 2199-12-31 23:59:59 +00:00"])
        // Feb 29 on a Monday: 2072, then not 2100 (no leap year), so 2112.
        #expect(try nextMatches("Mon *-02-29", after: localTime(2073, 1, 1, 0, 0), count: 1) == ["Mon 2112-02-29 00:00:00 +00:00"])
        let past = try CalendarEventParser.parse("Mon 2024-02-29").get()
        #expect(past.nextMatch(after: start, rule: FixedUTCOffset.utc) == nil)
    }
}
