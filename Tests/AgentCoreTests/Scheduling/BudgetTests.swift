// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §6: `DailyBudget=` discretionary launches per local day, refilled at local midnight.
@Suite struct SchedulingBudgetTests {
    /// Issue #4's 24 h simulation (b), in a UTC+2 zone: local midnight is 22:00 UTC.
    @Test func aBudgetOf10RefusesThe11thLaunchAndLaunchesAgainAfterLocalMidnight() {
        let calendar = LocalCalendar(utcOffsetSeconds: 7200)
        let localMidnight = midnightUTC + hours(22)
        var sim = Simulation(settings: settings(dailyBudget: 10), calendar: calendar,
                             jobs: [job("com.example.hourly", interval: hours(1))])
        sim.advance(to: morning + hours(10) + minutes(1))
        #expect(sim.launches.count == 10)
        #expect(sim.waiting("com.example.hourly").budgetRefill == localMidnight)
        #expect(sim.waiting("com.example.hourly")?.description == "budget")
        #expect(sim.scheduler.budgetRemaining(now: sim.now) == 0)
        #expect(sim.scheduler.nextDeadline == localMidnight)
        #expect(sim.logs.contains { $0.contains("deferred: budget") })
        #expect(sim.scheduler.explain(id("com.example.hourly")).contains {
            $0.event == .deferred(.budget(BudgetStanding(account: "all", used: 10, limit: 10, refillsAt: localMidnight)))
        })
        sim.advance(to: morning + hours(24))
        let afterMidnight = sim.launches.filter { $0.time >= localMidnight }
        #expect(sim.launches.filter { $0.time < localMidnight }.count == 10)
        #expect(afterMidnight.first?.time == localMidnight)
        #expect(afterMidnight.count == 10)  // 22:00 … 07:00 UTC hourly, within the new day's 10
        #expect(sim.scheduler.snapshot.budgetDay == "2026-12-01")
        #expect(sim.scheduler.snapshot.budgetSpent == 10)
    }

    @Test func continuedRunsAndShellStartedRunsDoNotSpendTheBudget() {
        var sim = Simulation(settings: settings(dailyBudget: 1),
                             jobs: [job("com.example.export", .continued), job("com.example.push")])
        for request in 1...3 {
            sim.send(.submit(submission("com.example.export", request: Int64(request))))
        }
        sim.send(.runStarted(id("com.example.push"), RunID(500), reason: .simulated))
        sim.send(.runEnded(id("com.example.push"), RunID(500), .success))
        #expect(sim.scheduler.budgetRemaining(now: sim.now) == 1)
        #expect(sim.launches(of: "com.example.export").count == 3)
    }

    @Test func theRefillIsADeadlineOnlyWhileSomethingWaitsOnTheBudget() {
        var sim = Simulation(settings: settings(dailyBudget: 1), jobs: [job("com.example.push")])
        sim.send(.trigger(id("com.example.push")))
        sim.advance(by: minutes(20))
        #expect(sim.scheduler.budgetRemaining(now: sim.now) == 0)
        #expect(sim.scheduler.nextDeadline == nil)  // spent, but nothing waits: asleep
        sim.send(.trigger(id("com.example.push")))
        #expect(sim.scheduler.nextDeadline == midnightUTC + hours(24))
        sim.advance(to: midnightUTC + hours(24))
        #expect(sim.launches.map(\.time) == [morning, midnightUTC + hours(24)])
    }

    @Test func retriesChainsAndCatchUpsSpendTheBudgetToo() {
        var sim = Simulation(settings: settings(dailyBudget: 2),
                             jobs: [job("com.example.a", retry: RetryPolicy(shape: .fixed(.seconds(30))))])
        sim.outcome = { _, _ in .failure(exitStatus: 1) }
        sim.send(.trigger(id("com.example.a")))
        sim.advance(by: hours(1))
        #expect(sim.launches.map(\.reason) == [.triggered, .retry])
        #expect(sim.waiting("com.example.a").budgetRefill == midnightUTC + hours(24))
    }
}

@Suite struct SchedulingCalendarChangeTests {
    @Test func aNewUTCOffsetMovesTheBudgetRefillToTheNewLocalMidnight() {
        var sim = Simulation(settings: settings(dailyBudget: 1), jobs: [job("com.example.push")])
        sim.send(.trigger(id("com.example.push")))
        sim.advance(by: minutes(20))
        sim.send(.trigger(id("com.example.push")))
        #expect(sim.waiting("com.example.push").budgetRefill == midnightUTC + hours(24))
        sim.send(.calendarChanged(LocalCalendar(utcOffsetSeconds: 3600)))
        #expect(sim.waiting("com.example.push").budgetRefill == midnightUTC + hours(23))
        sim.advance(to: midnightUTC + hours(23))
        #expect(sim.launches.map(\.time) == [morning, midnightUTC + hours(23)])
    }
}

@Suite struct SchedulingSettingsChangeTests {
    @Test func aShorterTriggerSpacingAppliesToThePendingTrigger() {
        var sim = Simulation(jobs: [job("com.example.push")])
        sim.send(.trigger(id("com.example.push")))
        sim.advance(by: minutes(1))
        sim.send(.trigger(id("com.example.push")))
        #expect(sim.scheduler.nextDeadline == morning + minutes(15))
        sim.send(.settingsChanged(settings(triggerSpacing: minutes(5))))
        #expect(sim.scheduler.nextDeadline == morning + minutes(5))
        sim.advance(by: minutes(10))
        #expect(sim.launches.map(\.time) == [morning, morning + minutes(5)])
    }

    @Test func liftingADenyLetsTheJobRunAgain() {
        var sim = Simulation(settings: settings(deny: ["com.example.feed"]),
                             jobs: [job("com.example.feed", interval: hours(1))])
        sim.advance(by: hours(2))
        #expect(sim.launches.isEmpty)
        #expect(sim.scheduler.nextDeadline == nil)
        sim.send(.settingsChanged(settings()))
        #expect(sim.launches.map(\.reason) == [.scheduled])
    }
}
