// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §6: after downtime, overdue interval jobs run once each, spread over
/// `CatchUpSpread`, most overdue first — never once per missed interval.
@Suite struct SchedulingCatchUpTests {
    static let jobs = [
        job("com.example.quarter", interval: minutes(15)),
        job("com.example.hourly", interval: hours(1)),
        job("com.example.daily", .processing, interval: hours(24)),
        job("com.example.weekly", .processing, interval: hours(24 * 7)),
        job("com.example.never", .processing),  // no interval: no catch-up
    ]

    /// The agent went down 3 days ago, right after each job had run.
    static func history(downAt: SchedulerTime) -> PersistedSchedule {
        var snapshot = PersistedSchedule()
        for (index, definition) in jobs.enumerated() {
            snapshot.lastRunStart[definition.identifier] = downAt - minutes(Double(index))
        }
        // The weekly job ran 6 days before going down: overdue by 2 days, not 3.
        snapshot.lastRunStart[id("com.example.weekly")] = downAt - hours(24 * 6)
        return snapshot
    }

    /// Issue #4's 24 h simulation (c).
    @Test func catchUpAfter3DaysDownRunsEachOverdueJobExactlyOnceSpreadMostOverdueFirst() {
        let downAt = morning - hours(72)
        let spread = minutes(5)
        var sim = Simulation(settings: settings(dailyBudget: 1000, catchUpSpread: spread), jobs: Self.jobs,
                             restored: Self.history(downAt: downAt))
        #expect(sim.ticks == 1)
        sim.advance(by: spread)
        let catchUps = sim.launches.filter { $0.reason == .catchUp }
        #expect(sim.launches == catchUps)
        #expect(Set(catchUps.map(\.job)).count == catchUps.count)  // once each
        // Most overdue first: quarter (due 72 h − 15 min ago), hourly, daily, weekly.
        #expect(catchUps.map(\.job.rawValue)
            == ["com.example.quarter", "com.example.hourly", "com.example.daily", "com.example.weekly"])
        #expect(catchUps.allSatisfy { $0.time >= morning && $0.time < morning + spread })
        #expect(Set(catchUps.map(\.time)).count > 1)  // spread, not all at once
        #expect(sim.logs.contains { $0.contains("catch-up: 4 overdue jobs") })

        // Afterwards each is back on its interval, counted from its catch-up run.
        sim.advance(to: morning + hours(24))
        let hourly = sim.launches(of: "com.example.hourly")
        #expect(hourly.count == 24)
        #expect(hourly.dropFirst().allSatisfy { $0.reason == .scheduled })
        #expect(sim.launches(of: "com.example.never").isEmpty)
        #expect(sim.launches(of: "com.example.weekly").count == 1)
    }

    @Test func whileWaitingForItsSlotAJobSaysCatchUp() {
        var sim = Simulation(settings: settings(catchUpSpread: hours(1)), jobs: Self.jobs,
                             restored: Self.history(downAt: morning - hours(72)))
        let pending = sim.scheduler.waiting(now: sim.now).filter {
            if case .catchUp = $0.waitingFor { true } else { false }
        }
        #expect(pending.count >= 3)
        for work in pending {
            #expect(work.waitingFor == .catchUp(at: work.earliestBegin ?? morning))
        }
        sim.advance(by: hours(1))
        #expect(sim.launches.filter { $0.reason == .catchUp }.count == 4)
    }

    @Test func theSpreadIsDeterministicForASeed() {
        func plan(seed: UInt64) -> [Launch] {
            var sim = Simulation(seed: seed, jobs: Self.jobs, restored: Self.history(downAt: morning - hours(72)))
            sim.advance(by: minutes(5))
            return sim.launches
        }
        #expect(plan(seed: 9) == plan(seed: 9))
        #expect(plan(seed: 9).map(\.time) != plan(seed: 10).map(\.time))
    }

    @Test func resumingAfterASuspendCatchesUpOnceNotOncePerMissedInterval() {
        var sim = Simulation(jobs: [job("com.example.quarter", interval: minutes(15))])
        #expect(sim.launches.count == 1)
        // Suspended for 10 hours: the shell's clock jumps; it reports the downtime first.
        sim.now = morning + hours(10)
        sim.send(.resumedAfterDowntime)
        #expect(sim.launches.count == 1)  // held until the tick that plans the catch-up
        sim.settle()
        sim.advance(by: minutes(5))
        #expect(sim.launches.map(\.reason) == [.scheduled, .catchUp])
        #expect(sim.launches.last.map { $0.time < morning + hours(10) + minutes(5) } == true)
    }

    @Test func aJobWithoutHistoryIsNotCaughtUpButRunsAsNew() {
        let sim = Simulation(jobs: [job("com.example.fresh", interval: hours(1))], restored: PersistedSchedule())
        #expect(sim.launches.map(\.reason) == [.scheduled])
        #expect(sim.launches.first?.time == morning)
    }

    @Test func jobsChangedBeforeRestoredStillCatchesUpInsteadOfLaunchingAsNew() {
        var scheduler = Scheduler(settings: AgentSettings(), calendar: .utc, seed: 3)
        let early = scheduler.handle(.jobsChanged(Self.jobs), now: morning)
        #expect(!early.contains { if case .launch = $0 { true } else { false } })
        _ = scheduler.handle(.restored(Self.history(downAt: morning - hours(72))), now: morning)
        #expect(scheduler.nextDeadline == morning)
        let actions = scheduler.handle(.tick, now: morning)
        // The most overdue at once, the other three in their catch-up slots.
        #expect(actions.filter { if case .launch(let order) = $0 { order.reason == .catchUp } else { false } }.count == 1)
        #expect(scheduler.waiting(now: morning).filter {
            if case .catchUp = $0.waitingFor { true } else { false }
        }.count == 3)
    }
}
