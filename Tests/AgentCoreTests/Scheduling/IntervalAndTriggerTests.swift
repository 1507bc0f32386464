// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §4: refresh/processing after `Interval`, one run and one pending request per
/// identifier; §6: trigger spacing.
@Suite struct SchedulingIntervalAndTriggerTests {
    @Test func aNewJobWithoutHistoryIsDueAtOnce() {
        let sim = Simulation(jobs: [job("com.example.feed", interval: hours(1))])
        #expect(sim.launches.map(\.reason) == [.scheduled])
        #expect(sim.launches.first?.time == morning)
    }

    @Test func anIntervalJobIsDueAtLastRunStartPlusInterval() {
        var sim = Simulation(jobs: [job("com.example.feed", interval: hours(1))])
        sim.advance(by: minutes(30))
        #expect(sim.waiting("com.example.feed") == .interval(earliest: morning + hours(1)))
        #expect(sim.scheduler.nextDeadline == morning + hours(1))
        sim.advance(by: hours(3) - minutes(30) + .seconds(1))
        #expect(sim.launches.map(\.time) == [0, 1, 2, 3].map { morning + hours($0) })
        #expect(sim.launches.allSatisfy { $0.reason == .scheduled })
    }

    @Test func aJobWithoutIntervalRunsOnlyWhenTriggered() {
        var sim = Simulation(jobs: [job("com.example.push", .processing)])
        sim.advance(by: hours(24))
        #expect(sim.launches.isEmpty)
        #expect(sim.scheduler.waitReason(for: id("com.example.push"), now: sim.now) == .notDue)
        sim.send(.trigger(id("com.example.push")))
        #expect(sim.launches.map(\.reason) == [.triggered])
    }

    @Test func aDueJobWhoseRunIsLiveWaitsRunning() {
        var sim = Simulation(jobs: [job("com.example.slow", interval: minutes(1))],
                             durations: ["com.example.slow": minutes(5)])
        sim.advance(by: minutes(2))
        #expect(sim.launches.count == 1)
        #expect(sim.waiting("com.example.slow") == .running)
        #expect(sim.scheduler.nextDeadline == nil)  // only the run's end can change anything
        sim.advance(by: minutes(3))
        #expect(sim.launches.map(\.time) == [morning, morning + minutes(5)])
    }

    /// While its run is live, a job whose next run is not due yet says when it is (`list`,
    /// `status`, `pending`), not only `running`.
    @Test func aRunningJobWhoseIntervalHasNotPassedWaitsForItsInterval() {
        var sim = Simulation(jobs: [job("com.example.daily", interval: hours(24))],
                             durations: ["com.example.daily": minutes(5)])
        sim.advance(by: minutes(1))
        #expect(sim.launches.count == 1)
        #expect(sim.waiting("com.example.daily") == .interval(earliest: morning + hours(24)))
    }

    @Test func repeatTriggersMergeIntoOnePendingRequest() {
        var sim = Simulation(jobs: [job("com.example.push")])
        sim.durations[id("com.example.push")] = .some(.seconds(60))
        sim.send(.trigger(id("com.example.push")))
        for second in [10.0, 20, 30] {
            sim.advance(to: morning + .seconds(second))
            sim.send(.trigger(id("com.example.push")))
        }
        #expect(sim.scheduler.snapshot.pendingTriggers == [id("com.example.push")])
        let events = sim.scheduler.explain(id("com.example.push")).map(\.event)
        #expect(events.filter { $0 == .triggered }.count == 2)  // the launch consumed the first
        #expect(events.filter { $0 == .mergedTrigger }.count == 2)
        sim.advance(by: hours(2))
        #expect(sim.launches.map(\.time) == [morning, morning + minutes(15)])
        #expect(sim.launches.map(\.reason) == [.triggered, .triggered])
    }

    /// Issue #4's 24 h simulation (a): Interval=15min, 14 triggers in an hour, runs of 10 s.
    @Test func aRefreshJobTriggered14TimesInAnHourLaunchesAtMost4Times() {
        // A budget that does not interfere: this is about trigger spacing.
        var sim = Simulation(settings: settings(dailyBudget: 500),
                             jobs: [job("com.example.news", interval: minutes(15))])
        let hourStart = morning
        for index in 0..<14 {
            sim.schedule(.trigger(id("com.example.news")), at: hourStart + .seconds(Double(index) * 3600 / 14))
        }
        sim.advance(to: hourStart + hours(24))
        let inHour = sim.launches.filter { $0.time < hourStart + hours(1) }
        #expect(inHour.count <= 4)
        #expect(inHour.count == 4)
        // Over the day it runs every 15 minutes, never more often.
        for (earlier, later) in zip(sim.launches, sim.launches.dropFirst()) {
            #expect(later.time.duration(since: earlier.time) >= minutes(15))
        }
        #expect(sim.launches.count == 24 * 4 + 1)  // both ends of the 24 h included
    }

    @Test func triggersWithoutIntervalLaunchAtMostOncePerTriggerSpacing() {
        var sim = Simulation(jobs: [job("com.example.push")])
        for index in 0..<14 {
            sim.schedule(.trigger(id("com.example.push")), at: morning + .seconds(Double(index) * 3600 / 14))
        }
        sim.advance(to: morning + hours(24))
        #expect(sim.launches.map(\.time) == [0, 15, 30, 45, 60].map { morning + minutes($0) })
        #expect(sim.launches.allSatisfy { $0.reason == .triggered })
        #expect(sim.launches.filter { $0.time < morning + hours(1) }.count == 4)
        #expect(sim.scheduler.snapshot.lastTriggerLaunch[id("com.example.push")] == morning + hours(1))
    }

    @Test func aTriggerWaitingForSpacingSaysTriggerSpacing() {
        var sim = Simulation(jobs: [job("com.example.push")])
        sim.send(.trigger(id("com.example.push")))
        sim.advance(by: minutes(1))
        sim.send(.trigger(id("com.example.push")))
        #expect(sim.waiting("com.example.push") == .triggerSpacing(earliest: morning + minutes(15)))
        #expect(sim.scheduler.nextDeadline == morning + minutes(15))
    }

    @Test func cancelPendingDropsTheRequestButNotTheInterval() {
        var sim = Simulation(jobs: [job("com.example.feed", interval: hours(1))])
        sim.advance(by: minutes(1))
        sim.send(.trigger(id("com.example.feed")))
        sim.send(.cancelPending(id("com.example.feed")))
        #expect(sim.scheduler.snapshot.pendingTriggers.isEmpty)
        #expect(sim.waiting("com.example.feed") == .interval(earliest: morning + hours(1)))
    }

    @Test func severalDueJobsLaunchMostOverdueFirstThenByIdentifier() {
        var sim = Simulation(settings: settings(maxConcurrent: 1))
        sim.send(.setPaused(true))
        sim.send(.jobsChanged([job("com.example.c", interval: hours(1))]))
        sim.advance(by: .seconds(30))
        sim.send(.jobsChanged([job("com.example.c", interval: hours(1)),
                               job("com.example.b", interval: hours(1)),
                               job("com.example.a", interval: hours(1))]))
        sim.advance(by: .seconds(30))
        sim.send(.setPaused(false))
        sim.advance(by: minutes(5))
        #expect(sim.launches.map(\.job.rawValue) == ["com.example.c", "com.example.a", "com.example.b"])
    }
}
