// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// A job with wall-clock keys, as a `.job` file would define it.
func calendarJob(_ name: String, _ kind: JobKind = .processing, schedule: String? = nil,
                 interval: Duration? = nil, windows: [String] = [], delay: Duration = .zero,
                 catchUp: Bool = true, requiresExternalPower: Bool = false) throws -> JobDefinition
{
    var definition = job(name, kind, interval: interval)
    definition.schedule = try schedule.map { try CalendarEventParser.parse($0).get() }
    definition.windows = try windows.map { try TimeWindow.parse($0).get() }
    definition.randomizedDelay = delay
    definition.catchUp = catchUp
    definition.requiresExternalPower = requiresExternalPower
    return definition
}

/// A simulation whose scheduler knows the local-time rules and the machine id.
func wallClockSimulation(_ jobs: [JobDefinition], start: SchedulerTime = morning,
                         rule: some UTCOffsetRule = FixedUTCOffset.utc, machineID: String = "test-machine",
                         restored: PersistedSchedule? = nil,
                         settings: AgentSettings = settings(dailyBudget: 1000)) -> Simulation
{
    var sim = Simulation(settings: settings, start: start)
    sim.scheduler = Scheduler(settings: settings, calendar: .utc, seed: 42, offsetRule: rule, machineID: machineID)
    if let restored { sim.send(.restored(restored)) }
    sim.send(.jobsChanged(jobs))
    sim.settle()
    return sim
}

func shown(_ launches: [Launch]) -> [String] { launches.map { show($0.time) } }

/// DESIGN §3, §4: `Schedule=` is an earliest begin at calendar slots; `Window=` gates starts;
/// `RandomizedDelay=` adds a stable per-job offset; `CatchUp=` decides about missed slots.
@Suite struct CalendarScheduleTests {
    @Test func aNewScheduledJobWaitsForItsNextSlotThenRunsAtEachSlot() throws {
        // Monday 08:00: today's 03:00 has passed, a new job does not run at once (§4).
        var sim = wallClockSimulation([try calendarJob("com.example.nightly", schedule: "daily 03:00")])
        #expect(sim.launches.isEmpty)
        let tomorrow = localTime(2026, 12, 1, 3, 0)
        #expect(sim.waiting("com.example.nightly") == .schedule(next: tomorrow))
        #expect(sim.scheduler.nextDeadline == tomorrow)
        sim.advance(to: localTime(2026, 12, 3, 12, 0))
        #expect(shown(sim.launches) == [
            "Tue 2026-12-01 03:00:00 +00:00", "Wed 2026-12-02 03:00:00 +00:00", "Thu 2026-12-03 03:00:00 +00:00"])
        #expect(sim.launches.allSatisfy { $0.reason == .scheduled })
    }

    @Test func repetitionAndWeekdaysDriveLaunches() throws {
        var sim = wallClockSimulation([try calendarJob("com.example.sixhourly", .refresh, schedule: "*-*-* 00/6:00"),
                                       try calendarJob("com.example.weekdays", schedule: "Mon..Fri 09:00")],
                                      start: localTime(2026, 12, 4, 8, 0))  // a Friday
        sim.advance(to: localTime(2026, 12, 7, 10, 0))
        #expect(shown(sim.launches(of: "com.example.weekdays")) == [
            "Fri 2026-12-04 09:00:00 +00:00", "Mon 2026-12-07 09:00:00 +00:00"])
        #expect(sim.launches(of: "com.example.sixhourly").count == 12)  // Fri 12:00 … Mon 06:00
    }

    @Test func withIntervalBothMustHold() throws {
        // Hourly slots but at least 2 h apart: 09:00, 11:00, 13:00 …
        var sim = wallClockSimulation([try calendarJob("com.example.both", schedule: "hourly", interval: hours(2))])
        sim.advance(to: morning + hours(5.5))
        #expect(shown(sim.launches) == [
            "Mon 2026-11-30 09:00:00 +00:00", "Mon 2026-11-30 11:00:00 +00:00", "Mon 2026-11-30 13:00:00 +00:00"])
        // Between, the interval is what it waits for; a daily slot with a 1 h interval waits for the slot.
        sim.advance(by: minutes(1))
        #expect(sim.waiting("com.example.both") == .interval(earliest: localTime(2026, 11, 30, 15, 0)))
        var daily = wallClockSimulation([try calendarJob("com.example.daily", schedule: "daily 03:00", interval: hours(1))])
        #expect(daily.waiting("com.example.daily") == .schedule(next: localTime(2026, 12, 1, 3, 0)))
        daily.advance(by: hours(24))
        #expect(shown(daily.launches) == ["Tue 2026-12-01 03:00:00 +00:00"])
    }

    @Test func aWindowOpensAtItsStartAndAJobDueOutsideWaitsForIt() throws {
        var sim = wallClockSimulation([try calendarJob("com.example.noon", .refresh, interval: hours(1),
                                                       windows: ["12:00-13:00"])])
        #expect(sim.waiting("com.example.noon") == .window(opens: localTime(2026, 11, 30, 12, 0)))
        sim.advance(to: localTime(2026, 11, 30, 11, 59, 59))
        #expect(sim.launches.isEmpty)
        sim.advance(to: localTime(2026, 12, 1, 12, 30))
        // 12:00 opens it; 13:00, its next interval, is where it closes: the next day.
        #expect(shown(sim.launches) == ["Mon 2026-11-30 12:00:00 +00:00", "Tue 2026-12-01 12:00:00 +00:00"])
        #expect(sim.waiting("com.example.noon") == .window(opens: localTime(2026, 12, 2, 12, 0)))
    }

    @Test func aWindowMayWrapMidnightAndSeveralMayBeGiven() throws {
        var sim = wallClockSimulation([
            try calendarJob("com.example.night", .refresh, interval: hours(1), windows: ["22:00-02:00"]),
            try calendarJob("com.example.twice", .refresh, interval: hours(1), windows: ["06:00-07:00", "18:00-19:00"]),
        ], start: localTime(2026, 11, 30, 12, 0))
        sim.advance(to: localTime(2026, 12, 1, 12, 0))
        #expect(shown(sim.launches(of: "com.example.night")) == [
            "Mon 2026-11-30 22:00:00 +00:00", "Mon 2026-11-30 23:00:00 +00:00",
            "Tue 2026-12-01 00:00:00 +00:00", "Tue 2026-12-01 01:00:00 +00:00"])
        #expect(shown(sim.launches(of: "com.example.twice")) == [
            "Mon 2026-11-30 18:00:00 +00:00", "Tue 2026-12-01 06:00:00 +00:00"])
    }

    @Test func aRunGoingWhenItsWindowClosesContinues() throws {
        var sim = wallClockSimulation([try calendarJob("com.example.long", schedule: "daily 12:30",
                                                       windows: ["12:00-13:00"])])
        sim.durations[id("com.example.long")] = .some(hours(2))
        sim.advance(to: localTime(2026, 11, 30, 15, 0))
        #expect(shown(sim.launches) == ["Mon 2026-11-30 12:30:00 +00:00"])
        #expect(sim.expiries.isEmpty)
        #expect(sim.scheduler.explain(id("com.example.long")).contains {
            if case .ended(_, .success) = $0.event { $0.time == localTime(2026, 11, 30, 14, 30) } else { false }
        })
    }

    @Test func aJobHeldPastItsWindowWaitsForTheNextOpening() throws {
        var sim = wallClockSimulation([try calendarJob("com.example.ac", schedule: "daily 03:00", windows: ["01:00-05:00"],
                                                       requiresExternalPower: true)],
                                      start: localTime(2026, 11, 30, 20, 0))
        sim.schedule(.conditionsChanged(onBattery(90)), at: localTime(2026, 12, 1, 2, 0))
        sim.schedule(.conditionsChanged(onAC(battery: 90)), at: localTime(2026, 12, 1, 6, 0))
        sim.advance(to: localTime(2026, 12, 1, 4, 0))
        #expect(sim.waiting("com.example.ac") == .condition(.externalPower))
        // At 05:00 the window closes: the held job goes back to wait for the next opening.
        sim.advance(to: localTime(2026, 12, 1, 5, 0))
        #expect(sim.scheduler.checkInvariants(now: sim.now).isEmpty, "\(sim.scheduler.checkInvariants(now: sim.now))")
        #expect(sim.scheduler.conditionHeld.isEmpty && sim.scheduler.due.contains(id("com.example.ac")))
        sim.advance(to: localTime(2026, 12, 1, 12, 0))
        #expect(sim.launches.isEmpty)
        #expect(sim.waiting("com.example.ac") == .window(opens: localTime(2026, 12, 2, 1, 0)))
        sim.advance(to: localTime(2026, 12, 2, 12, 0))
        // Yesterday's slot runs when the window opens; today's 03:00 slot then runs as well.
        #expect(shown(sim.launches) == ["Wed 2026-12-02 01:00:00 +00:00", "Wed 2026-12-02 03:00:00 +00:00"])
    }

    @Test func theRandomizedDelayIsStableAndAddedToEachSlot() throws {
        let delay = minutes(30)
        let offset = StableDelay.offset(span: delay, machineID: "test-machine", identifier: id("com.example.jitter"))
        #expect(offset > .zero && offset < delay)
        var sim = wallClockSimulation([try calendarJob("com.example.jitter", schedule: "daily 03:00", delay: delay),
                                       try calendarJob("com.example.other", schedule: "daily 03:00", delay: delay)])
        #expect(sim.waiting("com.example.jitter") == .schedule(next: localTime(2026, 12, 1, 3, 0) + offset))
        sim.advance(by: hours(72))
        let times = sim.launches(of: "com.example.jitter").map(\.time)
        #expect(times == [localTime(2026, 12, 1, 3, 0) + offset, localTime(2026, 12, 2, 3, 0) + offset,
                          localTime(2026, 12, 3, 3, 0) + offset])
        let other = sim.launches(of: "com.example.other").map(\.time)
        #expect(other.count == 3 && other.first != times.first)
        // Another machine: another offset for the same job.
        let elsewhere = wallClockSimulation([try calendarJob("com.example.jitter", schedule: "daily 03:00", delay: delay)],
                                            machineID: "another-machine")
        #expect(elsewhere.waiting("com.example.jitter") != sim.waiting("com.example.jitter"))
    }

    @Test func withIntervalOnlyTheDelayStartsAfterTheFirstRun() throws {
        let delay = minutes(10)
        let offset = StableDelay.offset(span: delay, machineID: "test-machine", identifier: id("com.example.spaced"))
        var sim = wallClockSimulation([try calendarJob("com.example.spaced", .refresh, interval: hours(1), delay: delay)])
        sim.advance(by: hours(2.5))
        // A new interval job is due at once (DESIGN §4); each later due time carries the offset.
        #expect(sim.launches.map(\.time) == [morning, morning + hours(1) + offset, morning + hours(2) + offset * 2])
    }

    /// The agent was down from Sunday 12:00 to Monday 08:00: Monday's 03:00 slot was missed.
    func downOverNight(catchUp: Bool) throws -> Simulation {
        var history = PersistedSchedule()
        history.lastRunStart[id("com.example.nightly")] = localTime(2026, 11, 29, 3, 0)
        return wallClockSimulation([try calendarJob("com.example.nightly", schedule: "daily 03:00", catchUp: catchUp)],
                                   restored: history, settings: settings(dailyBudget: 1000, catchUpSpread: minutes(5)))
    }

    @Test func aSlotMissedWhileDownRunsOnceWithCatchUp() throws {
        var sim = try downOverNight(catchUp: true)
        sim.advance(to: localTime(2026, 12, 1, 12, 0))
        #expect(sim.launches.map(\.reason) == [.catchUp, .scheduled])
        #expect(sim.launches[0].time >= morning && sim.launches[0].time < morning + minutes(5))
        #expect(show(sim.launches[1].time) == "Tue 2026-12-01 03:00:00 +00:00")
    }

    @Test func withCatchUpNoAMissedSlotIsSkipped() throws {
        var sim = try downOverNight(catchUp: false)
        #expect(sim.waiting("com.example.nightly") == .schedule(next: localTime(2026, 12, 1, 3, 0)))
        #expect(sim.logs.contains { $0.contains("skipped (CatchUp=no)") })
        sim.advance(to: localTime(2026, 12, 1, 12, 0))
        #expect(shown(sim.launches) == ["Tue 2026-12-01 03:00:00 +00:00"])
    }

    @Test func aSlotMissedWhileAsleepFollowsCatchUp() throws {
        for catchUp in [true, false] {
            var sim = wallClockSimulation([try calendarJob("com.example.nightly", schedule: "daily 03:00", catchUp: catchUp)],
                                          start: localTime(2026, 11, 30, 20, 0),
                                          settings: settings(dailyBudget: 1000, catchUpSpread: .zero))
            sim.advance(to: localTime(2026, 12, 1, 12, 0))
            #expect(sim.launches.count == 1)
            // Asleep from Tuesday 22:00 to Wednesday 07:00: no tick ran at 03:00.
            sim.advance(to: localTime(2026, 12, 1, 22, 0))
            sim.now = localTime(2026, 12, 2, 7, 0)
            sim.send(.resumedAfterDowntime)
            sim.settle()
            sim.advance(to: localTime(2026, 12, 2, 12, 0))
            #expect(sim.launches.map(\.reason) == (catchUp ? [.scheduled, .catchUp] : [.scheduled]), "CatchUp=\(catchUp)")
        }
    }

    @Test func slotsFollowDaylightSavingTransitions() throws {
        // Berlin, Saturday before the spring-forward night: 02:30 does not exist on Sunday.
        var sim = wallClockSimulation([try calendarJob("com.example.dst", schedule: "daily 02:30")],
                                      start: localTime(2027, 3, 27, 12, 0, 0, berlinSpring2027), rule: berlinSpring2027)
        sim.advance(by: hours(48))
        #expect(sim.launches.map { show($0.time, berlinSpring2027) } == [
            "Sun 2027-03-28 03:00:00 +02:00", "Mon 2027-03-29 02:30:00 +02:00"])
    }
}

/// Ten thousand scheduled jobs register and launch at their first slot. How long that takes is
/// `make bench`'s (scheduler-bench), not a unit test's.
@Suite struct CalendarScheduleScaleTests {
    @Test func tenThousandScheduledJobsRegisterAndLaunchAtTheirFirstSlot() throws {
        let jobs = try (0..<10_000).map { index in
            try calendarJob("com.example.bulk.job\(index)", schedule: ["daily 03:00", "Mon..Fri 09:00", "*-*-* 00/6:00"][index % 3],
                            windows: index % 2 == 0 ? ["01:00-05:00"] : [], delay: minutes(30))
        }
        var sim = Simulation(settings: settings(dailyBudget: 100_000), start: morning)
        sim.scheduler = Scheduler(settings: settings(dailyBudget: 100_000), calendar: .utc, seed: 42,
                                  offsetRule: FixedUTCOffset.utc, machineID: "m")
        sim.send(.jobsChanged(jobs))
        sim.settle()
        #expect(sim.launches.isEmpty)
        let deadline = try #require(sim.scheduler.nextDeadline)
        sim.now = deadline
        sim.send(.tick)
        #expect(!sim.launches.isEmpty)
        #expect(sim.launches.allSatisfy { $0.time == deadline })
    }
}
