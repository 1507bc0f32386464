// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

@Suite struct SchedulingTimeTests {
    @Test func addingADurationMovesTheTimeBySubSecondPrecision() {
        let t = SchedulerTime(seconds: 100)
        #expect(t + .milliseconds(1500) == SchedulerTime(seconds: 101.5))
        #expect(t - .seconds(30) == SchedulerTime(seconds: 70))
        #expect((t + .seconds(90)).duration(since: t) == .seconds(90))
        #expect(t.duration(since: t + .milliseconds(250)) == .milliseconds(-250))
    }

    @Test func absurdSpansSaturateInsteadOfTrapping() {
        let t = SchedulerTime(seconds: 0)
        let far = t + .seconds(Int64.max)
        #expect(far > t)
        #expect(far.duration(since: t) > .seconds(1_000_000_000))
        #expect(SchedulerTime(seconds: .infinity).duration(since: t) == DurationArithmetic.ceiling)
        #expect(SchedulerTime(seconds: .nan).duration(since: t) == .zero)
    }

    @Test func codableIsASingleNumber() throws {
        let encoded = try JSONText.encode(SchedulerTime(seconds: 1_795_996_800.25))
        #expect(encoded == "1795996800.25")
    }
}

@Suite struct SchedulingCalendarTests {
    @Test func nextMidnightIsLocalMidnightStrictlyAfter() {
        let utc = LocalCalendar.utc
        #expect(utc.nextMidnight(after: morning) == midnightUTC + hours(24))
        #expect(utc.nextMidnight(after: midnightUTC) == midnightUTC + hours(24))
        #expect(utc.nextMidnight(after: midnightUTC - .milliseconds(1)) == midnightUTC)
        // UTC+2: local midnight is 22:00 UTC the day before.
        let east = LocalCalendar(utcOffsetSeconds: 7200)
        #expect(east.nextMidnight(after: morning) == midnightUTC + hours(22))
        // UTC-5: local midnight is 05:00 UTC.
        let west = LocalCalendar(utcOffsetSeconds: -18_000)
        #expect(west.nextMidnight(after: midnightUTC) == midnightUTC + hours(5))
    }

    @Test func dayKeyIsTheLocalDate() {
        #expect(LocalCalendar.utc.dayKey(morning) == "2026-11-30")
        #expect(LocalCalendar(utcOffsetSeconds: 7200).dayKey(midnightUTC + hours(23)) == "2026-12-01")
        #expect(LocalCalendar(utcOffsetSeconds: -18_000).dayKey(midnightUTC + hours(2)) == "2026-11-29")
        #expect(LocalCalendar.utc.dayKey(SchedulerTime(seconds: 0)) == "1970-01-01")
        #expect(LocalCalendar.utc.dayKey(SchedulerTime(seconds: 951_782_400)) == "2000-02-29")
        #expect(LocalCalendar.utc.dayKey(SchedulerTime(seconds: -1)) == "1969-12-31")
    }
}
