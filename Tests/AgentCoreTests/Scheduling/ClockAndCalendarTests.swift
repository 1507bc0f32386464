// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// 2026-03-29 00:00 UTC: Europe/Paris springs forward at 01:00 UTC (02:00 CET → 03:00 CEST).
private let springDayUTC = SchedulerTime(seconds: 1_774_742_400)
/// 2026-10-25 00:00 UTC: Europe/Paris falls back at 01:00 UTC (03:00 CEST → 02:00 CET).
private let fallDayUTC = SchedulerTime(seconds: 1_792_886_400)

/// Paris before the spring switch, as the shell hands it over: CET now, CEST from the switch.
private let parisBeforeSpring = LocalCalendar(
    utcOffsetSeconds: 3600,
    nextTransition: .init(at: springDayUTC + hours(1), utcOffsetSeconds: 7200))
/// Paris before the autumn switch: CEST now, CET from the switch.
private let parisBeforeFall = LocalCalendar(
    utcOffsetSeconds: 7200,
    nextTransition: .init(at: fallDayUTC + hours(1), utcOffsetSeconds: 3600))

/// DESIGN §6, §10: the daily budget refills at local midnight by the real zone rules, also on
/// daylight-saving days, and follows a new time zone at once.
@Suite struct LocalCalendarTests {
    @Test func onTheSpringForwardDayTheNextMidnightIsAt22UTCNot23() {
        let afterSwitch = springDayUTC + hours(1) + minutes(30)  // 03:30 CEST
        #expect(parisBeforeSpring.nextMidnight(after: afterSwitch) == springDayUTC + hours(22))
        let beforeSwitch = springDayUTC + minutes(30)  // 01:30 CET
        #expect(parisBeforeSpring.nextMidnight(after: beforeSwitch) == springDayUTC + hours(22))
        #expect(parisBeforeSpring.dayKey(springDayUTC + hours(22) - .seconds(1)) == "2026-03-29")
        #expect(parisBeforeSpring.dayKey(springDayUTC + hours(22)) == "2026-03-30")
        // The midnight before the switch still uses CET.
        #expect(parisBeforeSpring.nextMidnight(after: springDayUTC - hours(12)) == springDayUTC - hours(1))
    }

    @Test func onTheFallBackDayTheNextMidnightIsAt23UTCNot22() {
        let beforeSwitch = fallDayUTC + minutes(30)  // 02:30 CEST
        #expect(parisBeforeFall.nextMidnight(after: beforeSwitch) == fallDayUTC + hours(23))
        #expect(parisBeforeFall.dayKey(fallDayUTC + hours(23) - .seconds(1)) == "2026-10-25")
        #expect(parisBeforeFall.dayKey(fallDayUTC + hours(23)) == "2026-10-26")
    }

    @Test func aSwitchAtMidnightThatSkipsItStartsTheDayAtTheSwitch() {
        // A zone springing forward at local midnight (as Santiago does): 00:00 never happens.
        let switchAt = springDayUTC + hours(4)  // 00:00 at UTC−4 becomes 01:00 at UTC−3
        let calendar = LocalCalendar(utcOffsetSeconds: -4 * 3600,
                                     nextTransition: .init(at: switchAt, utcOffsetSeconds: -3 * 3600))
        #expect(calendar.nextMidnight(after: switchAt - hours(2)) == switchAt)
        #expect(calendar.dayKey(switchAt) == "2026-03-29")
    }

    @Test func aCalendarIsOutdatedOnceItsTransitionPassed() {
        #expect(!parisBeforeSpring.isOutdated(at: springDayUTC))
        #expect(parisBeforeSpring.isOutdated(at: springDayUTC + hours(1)))
        #expect(!LocalCalendar.utc.isOutdated(at: springDayUTC))
        #expect(parisBeforeSpring.utcOffset(at: springDayUTC + hours(1)) == 7200)
    }
}

@Suite struct DaylightSavingBudgetTests {
    /// Budget 1: the first trigger spends it, the second waits for the refill.
    private func spentBudget(calendar: LocalCalendar, start: SchedulerTime) -> Simulation {
        var sim = Simulation(settings: settings(dailyBudget: 1), calendar: calendar, start: start,
                             jobs: [job("com.example.push")])
        sim.send(.trigger(id("com.example.push")))
        sim.advance(by: minutes(20))
        sim.send(.trigger(id("com.example.push")))
        return sim
    }

    @Test func onTheSpringForwardDayTheBudgetRefillsAtLocalMidnight() {
        var sim = spentBudget(calendar: parisBeforeSpring, start: springDayUTC + minutes(30))
        let midnight = springDayUTC + hours(22)  // 2026-03-30 00:00 CEST
        #expect(sim.waiting("com.example.push").budgetRefill == midnight)
        sim.advance(to: midnight - .seconds(1))
        #expect(sim.launches.count == 1)
        sim.advance(to: midnight)
        #expect(sim.launches.map(\.time) == [springDayUTC + minutes(30), midnight])
        #expect(sim.scheduler.snapshot.budgetDay == "2026-03-30")
    }

    @Test func onTheFallBackDayTheBudgetRefillsAtLocalMidnight() {
        var sim = spentBudget(calendar: parisBeforeFall, start: fallDayUTC + minutes(30))
        let midnight = fallDayUTC + hours(23)  // 2026-10-26 00:00 CET
        #expect(sim.waiting("com.example.push").budgetRefill == midnight)
        sim.advance(to: midnight - .seconds(1))
        #expect(sim.launches.count == 1)
        sim.advance(to: midnight)
        #expect(sim.launches.map(\.time) == [fallDayUTC + minutes(30), midnight])
    }

    @Test func theShellsFreshCalendarAfterTheSwitchKeepsTheSameRefill() {
        var sim = spentBudget(calendar: parisBeforeSpring, start: springDayUTC + minutes(30))
        sim.advance(to: springDayUTC + hours(2))
        let fresh = LocalCalendar(utcOffsetSeconds: 7200,
                                  nextTransition: .init(at: fallDayUTC + hours(1), utcOffsetSeconds: 3600))
        sim.send(.calendarChanged(fresh))
        #expect(sim.waiting("com.example.push").budgetRefill == springDayUTC + hours(22))
        #expect(sim.launches.count == 1)
    }

    @Test func aZoneToTheWestKeepsTodaysSpendingAndRefillsAtItsMidnight() {
        // 00:30 on 1 December in Paris (23:30 UTC) becomes 18:30 on 30 November in New York:
        // back to the previous date, whose budget must not be handed out a second time.
        var sim = spentBudget(calendar: LocalCalendar(utcOffsetSeconds: 3600), start: midnightUTC + hours(23) + minutes(10))
        sim.send(.calendarChanged(LocalCalendar(utcOffsetSeconds: -5 * 3600)))
        let newYorkMidnight = midnightUTC + hours(29)  // 2026-12-01 00:00 EST
        #expect(sim.launches.count == 1)
        #expect(sim.waiting("com.example.push").budgetRefill == newYorkMidnight)
        sim.advance(to: newYorkMidnight)
        #expect(sim.launches.map(\.time) == [midnightUTC + hours(23) + minutes(10), newYorkMidnight])
    }

    @Test func aZoneToTheEastPastMidnightStartsTheNewDayAtOnce() {
        // 23:30 in Paris becomes 07:30 the next day in Tokyo: a new date, a full budget.
        var sim = spentBudget(calendar: LocalCalendar(utcOffsetSeconds: 3600), start: midnightUTC + hours(22) + minutes(10))
        sim.send(.calendarChanged(LocalCalendar(utcOffsetSeconds: 9 * 3600)))
        #expect(sim.launches.count == 2)
        #expect(sim.scheduler.snapshot.budgetDay == "2026-12-01")
    }

    @Test func anUnchangedCalendarChangesNothing() {
        var sim = spentBudget(calendar: .utc, start: morning)
        let actions = sim.send(.calendarChanged(.utc))
        #expect(actions.isEmpty)
    }
}

/// DESIGN §10: a wall-clock step (NTP, `date -s`) keeps elapsed-time rules elapsed — no run
/// twice because the clock jumped ahead, no wait stuck because it went back — while the budget
/// follows the new local date.
@Suite struct ClockStepTests {
    /// Steps the simulated clock and tells the scheduler, as the shell does.
    private func step(_ sim: inout Simulation, by size: Duration) {
        sim.now = sim.now + size
        sim.send(.clockStepped(by: size))
    }

    @Test func aStepForwardDoesNotRunAnIntervalJobEarly() {
        var sim = Simulation(jobs: [job("com.example.hourly", interval: hours(1))])
        sim.advance(to: morning + minutes(30))
        step(&sim, by: hours(2))  // 08:30 → 10:30
        #expect(sim.launches.count == 1)
        #expect(sim.scheduler.nextDeadline == morning + hours(3))  // 30 min still to go
        #expect(sim.waiting("com.example.hourly") == .interval(earliest: morning + hours(3)))
        sim.advance(to: morning + hours(3))
        #expect(sim.launches.map(\.time) == [morning, morning + hours(3)])
        #expect(sim.persisted?.lastRunStart[id("com.example.hourly")] == morning + hours(3))
    }

    @Test func aStepBackDoesNotLeaveAnIntervalJobWaitingLonger() {
        var sim = Simulation(jobs: [job("com.example.hourly", interval: hours(1))])
        sim.advance(to: morning + minutes(30))
        step(&sim, by: hours(-2))  // 08:30 → 06:30
        #expect(sim.scheduler.nextDeadline == morning - hours(1))  // 07:00: 30 min to go, not 2 h 30
        #expect(sim.persisted?.lastRunStart[id("com.example.hourly")] == morning - hours(2))
        sim.advance(to: morning - hours(1))
        #expect(sim.launches.map(\.time) == [morning, morning - hours(1)])
    }

    @Test func aStepBackKeepsARetryBackoffAtItsLength() {
        var sim = Simulation(jobs: [job("com.example.sync", retry: RetryPolicy(shape: .fixed(minutes(30))))])
        sim.outcome = { _, count in count == 1 ? .failure(exitStatus: 1) : .success }
        sim.send(.trigger(id("com.example.sync")))
        sim.advance(by: minutes(10))  // failed at 08:00:10; retry at 08:30:10
        step(&sim, by: hours(-2))
        sim.advance(by: minutes(20) + .seconds(10))
        #expect(sim.launches.map(\.reason) == [.triggered, .retry])
        #expect(sim.launches.last?.time == morning - hours(2) + minutes(30) + .seconds(10))
    }

    @Test func aStepForwardPastMidnightRefillsTheBudget() {
        let lateEvening = midnightUTC + hours(23)
        var sim = Simulation(settings: settings(dailyBudget: 1), start: lateEvening, jobs: [job("com.example.push")])
        sim.send(.trigger(id("com.example.push")))
        sim.advance(by: minutes(30))
        sim.send(.trigger(id("com.example.push")))  // spacing passed, budget spent
        sim.advance(by: minutes(10))
        #expect(sim.launches.count == 1)
        step(&sim, by: hours(2))  // 23:40 → 01:40 the next day
        #expect(sim.launches.map(\.reason) == [.triggered, .triggered])
        #expect(sim.launches.last?.time == lateEvening + hours(2) + minutes(40))
        #expect(sim.scheduler.snapshot.budgetDay == "2026-12-01")
    }

    @Test func aStepBackPastMidnightDoesNotHandOutTheSameDaysBudgetTwice() {
        let afterMidnight = midnightUTC + hours(24) + minutes(10)  // 2026-12-01 00:10
        var sim = Simulation(settings: settings(dailyBudget: 1), start: afterMidnight, jobs: [job("com.example.push")])
        sim.send(.trigger(id("com.example.push")))
        sim.advance(by: minutes(20))
        sim.send(.trigger(id("com.example.push")))
        step(&sim, by: hours(-2))  // 00:30 → 22:30 on 2026-11-30
        #expect(sim.launches.count == 1)
        let nextMidnight = midnightUTC + hours(24)
        #expect(sim.waiting("com.example.push").budgetRefill == nextMidnight)
        sim.advance(to: nextMidnight)
        #expect(sim.launches.map(\.time) == [afterMidnight, nextMidnight])
    }

    @Test func aStepOfZeroChangesNothing() {
        var sim = Simulation(jobs: [job("com.example.hourly", interval: hours(1))])
        sim.advance(to: morning + minutes(30))
        #expect(sim.send(.clockStepped(by: .zero)).isEmpty)
    }
}
