// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Daylight saving with a rule of one transition (Europe/Berlin). A local time that does not
/// exist runs at the first instant after the gap (cron's choice; systemd skips the slot to the
/// next day, systemd/systemd#5595); one that occurs twice runs once, at its first occurrence.
struct CalendarDSTTests {
    @Test func aSlotInTheSpringForwardGapRunsWhenTheGapEnds() throws {
        let saturday = localTime(2027, 3, 27, 12, 0, 0, berlinSpring2027)
        #expect(try nextMatches("daily 02:30", after: saturday, count: 3, berlinSpring2027) == [
            "Sun 2027-03-28 03:00:00 +02:00", "Mon 2027-03-29 02:30:00 +02:00", "Tue 2027-03-30 02:30:00 +02:00"])
        // The instant is the transition itself: 01:00 UTC.
        let event = try CalendarEventParser.parse("daily 02:30").get()
        #expect(event.nextMatch(after: saturday, rule: berlinSpring2027) == SchedulerTime(seconds: Double(berlinSpring2027.at)))
    }

    @Test func aGapSlotIsFoundFromJustBeforeTheTransitionAndNotAgainAfterIt() throws {
        let event = try CalendarEventParser.parse("daily 02:30").get()
        let transition = SchedulerTime(seconds: Double(berlinSpring2027.at))
        #expect(event.nextMatch(after: transition - .seconds(1), rule: berlinSpring2027) == transition)
        let next = try #require(event.nextMatch(after: transition, rule: berlinSpring2027))
        #expect(show(next, berlinSpring2027) == "Mon 2027-03-29 02:30:00 +02:00")
    }

    @Test func slotsAroundTheGapKeepTheirLocalTimes() throws {
        let saturday = localTime(2027, 3, 27, 23, 30, 0, berlinSpring2027)
        #expect(try nextMatches("hourly", after: saturday, count: 4, berlinSpring2027) == [
            "Sun 2027-03-28 00:00:00 +01:00", "Sun 2027-03-28 01:00:00 +01:00",
            "Sun 2027-03-28 03:00:00 +02:00", "Sun 2027-03-28 04:00:00 +02:00"])
        #expect(try nextMatches("daily 03:10", after: saturday, count: 2, berlinSpring2027) == [
            "Sun 2027-03-28 03:10:00 +02:00", "Mon 2027-03-29 03:10:00 +02:00"])
    }

    @Test func aRepeatedTimeOnTheFallBackDayRunsOnceAtItsFirstOccurrence() throws {
        let saturday = localTime(2026, 10, 24, 12, 0, 0, berlinFall2026)
        #expect(try nextMatches("daily 02:30", after: saturday, count: 3, berlinFall2026) == [
            "Sun 2026-10-25 02:30:00 +02:00", "Mon 2026-10-26 02:30:00 +01:00", "Tue 2026-10-27 02:30:00 +01:00"])
        #expect(try nextMatches("hourly", after: localTime(2026, 10, 25, 0, 30, 0, berlinFall2026), count: 4, berlinFall2026) == [
            "Sun 2026-10-25 01:00:00 +02:00", "Sun 2026-10-25 02:00:00 +02:00",
            "Sun 2026-10-25 03:00:00 +01:00", "Sun 2026-10-25 04:00:00 +01:00"])
    }

    @Test func fromInsideTheRepeatedHourTheNextSlotIsAfterIt() throws {
        // 02:15 CET, the second pass of the repeated hour (01:15 UTC): 02:30 already ran at 00:30 UTC.
        let secondPass = SchedulerTime(seconds: Double(utcSeconds(2026, 10, 25, 1, 15)))
        #expect(show(secondPass, berlinFall2026) == "Sun 2026-10-25 02:15:00 +01:00")
        #expect(try nextMatches("daily 02:30", after: secondPass, count: 1, berlinFall2026) == [
            "Mon 2026-10-26 02:30:00 +01:00"])
        #expect(try nextMatches("*:00/20", after: secondPass, count: 2, berlinFall2026) == [
            "Sun 2026-10-25 03:00:00 +01:00", "Sun 2026-10-25 03:20:00 +01:00"])
    }
}
