// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `nextDeadline` (idle = asleep) and the cost of a decision with 10,000 jobs.
@Suite struct SchedulingDeadlineAndScaleTests {
    /// Issue #4 (j).
    @Test func nextDeadlineIsNilWhenNothingIsDueSoTheAgentSleeps() {
        var sim = Simulation(jobs: [job("com.example.push"), job("com.example.export", .continued)])
        #expect(sim.scheduler.nextDeadline == nil)
        let ticks = sim.ticks
        sim.advance(by: hours(24 * 7))
        #expect(sim.ticks == ticks)  // a week without one wake-up
        #expect(sim.launches.isEmpty)
        #expect(sim.scheduler.waiting(now: sim.now).isEmpty)
    }

    @Test func aFreshSchedulerHasNoDeadlineAndHoldsLaunchesUntilItsFirstTick() {
        var scheduler = Scheduler(settings: AgentSettings(), calendar: .utc, seed: 0)
        #expect(scheduler.nextDeadline == nil)
        let actions = scheduler.handle(.jobsChanged([job("com.example.feed", interval: hours(1))]), now: morning)
        #expect(!actions.contains { if case .launch = $0 { true } else { false } })
        #expect(scheduler.nextDeadline == morning)
        let tick = scheduler.handle(.tick, now: morning)
        #expect(tick.first == .launch(LaunchOrder(job: job("com.example.feed", interval: hours(1)), reason: .scheduled,
                                            run: RunID(1))))
    }

    @Test func removedJobsDisappearWithTheirPendingWork() {
        var sim = Simulation(settings: settings(maxConcurrent: 1),
                             jobs: [job("com.example.feed", interval: hours(1)), job("com.example.push"),
                                    job("com.example.export", .continued)],
                             durations: ["com.example.feed": nil])
        sim.send(.trigger(id("com.example.push")))
        sim.send(.submit(submission("com.example.export", request: 1)))
        // feed's next interval run waits for its interval (its run is live); push for the slot;
        // export queued.
        #expect(sim.scheduler.waiting(now: sim.now).map(\.waitingFor)
            == [.maxConcurrent, .interval(earliest: morning + hours(1)), .maxConcurrent])
        sim.send(.jobsChanged([job("com.example.feed", interval: hours(1))]))
        #expect(sim.scheduler.waiting(now: sim.now).map(\.identifier) == [id("com.example.feed")])
        #expect(sim.scheduler.snapshot.pendingTriggers.isEmpty)
        #expect(sim.scheduler.snapshot.submissions.isEmpty)
        #expect(sim.scheduler.explain(id("com.example.push")).last?.event == .removed)
        #expect(sim.scheduler.waitReason(for: id("com.example.push"), now: sim.now) == nil)
    }

    @Test func aChangedIntervalMovesTheNextDeadline() {
        var sim = Simulation(jobs: [job("com.example.feed", interval: hours(1))])
        #expect(sim.scheduler.nextDeadline == nil)  // its first run is live
        sim.advance(by: .seconds(10))
        #expect(sim.scheduler.nextDeadline == morning + hours(1))
        sim.send(.jobsChanged([job("com.example.feed", interval: hours(6))]))
        #expect(sim.scheduler.nextDeadline == morning + hours(6))
        sim.send(.jobsChanged([job("com.example.feed")]))
        #expect(sim.scheduler.nextDeadline == nil)
    }

    /// 10,000 jobs, half with intervals: a tick looks only at the jobs whose time has come,
    /// never at all of them (the count of jobs examined stands in for time: no timing here).
    @Test func aTickWith10000JobsExaminesOnlyTheJobsThatAreDue() {
        var definitions: [JobDefinition] = []
        var history = PersistedSchedule()
        for index in 0..<10_000 {
            let name = "com.example.bulk.job\(index)"
            if index % 2 == 0 {
                let interval = hours(Double(index % 24 + 1))
                definitions.append(job(name, index % 3 == 0 ? .refresh : .processing, interval: interval))
                // Each ran recently enough not to be overdue: due at distinct times ahead.
                history.lastRunStart[id(name)] = morning - interval + .seconds(Double(index) + 1)
            } else {
                definitions.append(job(name, index % 3 == 0 ? .continued : .refresh))
            }
        }
        var scheduler = Scheduler(settings: settings(maxConcurrent: 64, dailyBudget: 100_000),
                                  calendar: .utc, seed: 5)
        _ = scheduler.handle(.restored(history), now: morning)
        _ = scheduler.handle(.jobsChanged(definitions), now: morning)
        _ = scheduler.handle(.tick, now: morning)
        #expect(scheduler.liveRunCount == 0)

        var worst = 0
        var launched = 0
        for _ in 0..<500 {
            guard let deadline = scheduler.nextDeadline else { break }
            let actions = scheduler.handle(.tick, now: deadline)
            worst = max(worst, scheduler.lastEventWork)
            for action in actions {
                guard case .launch(let order) = action else { continue }
                let job = order.job.identifier
                launched += 1
                _ = scheduler.handle(.runStarted(job, order.run, reason: .scheduled), now: deadline)
                _ = scheduler.handle(.runEnded(job, order.run, .success), now: deadline + .seconds(1))
                worst = max(worst, scheduler.lastEventWork)
            }
        }
        #expect(launched >= 500)
        #expect(worst <= 4)
    }
}

/// Issue #4: `status` lists the first waiting work and counts it without walking every job.
@Suite struct WaitingSummaryTests {
    @Test func theSummaryListsTheSameFirstEntriesAsTheFullQueryAndCountsThemAll() {
        var jobs = (0..<300).map { job("com.example.i\($0)", interval: minutes(Double(15 + $0 % 40))) }
        jobs += (0..<50).map { job("com.example.t\($0)") }
        var sim = Simulation(settings: settings(maxConcurrent: 3, dailyBudget: 10_000, deny: ["com.example.i29*"]),
                             jobs: jobs)
        sim.defaultDuration = minutes(3)
        for index in stride(from: 0, to: 50, by: 3) { sim.send(.trigger(id("com.example.t\(index)"))) }
        sim.send(.setEnabled(id("com.example.i7"), false))
        for step in 0..<6 {
            sim.advance(by: minutes(7))
            let full = sim.scheduler.waiting(now: sim.now)
            let summary = sim.scheduler.waitingSummary(now: sim.now, limit: 100)
            #expect(summary.total == full.count, "step \(step)")
            #expect(summary.work == Array(full.prefix(100)), "step \(step)")
        }
    }

    @Test func theSummaryOfTenThousandJobsLooksAtAFewHundred() {
        let jobs = (0..<10_000).map { job("com.example.j\($0)", interval: hours(1)) }
        var sim = Simulation(settings: settings(maxConcurrent: 8, dailyBudget: 100_000), jobs: jobs)
        sim.advance(by: minutes(1))
        let summary = sim.scheduler.waitingSummary(now: sim.now, limit: 100)
        #expect(summary.work.count == 100)
        #expect(summary.total == sim.scheduler.waiting(now: sim.now).count)
    }

    /// Jobs due at the same instant tie on "due since" and earliest begin: the walk of the
    /// ready heap stops after the first `limit` by identifier instead of taking the whole heap
    /// (it took all 9,944 of them, ~20 ms of each `status` while they launched).
    @Test func jobsDueAtTheSameInstantAreSummarisedFromTheFirstHundredOfTheHeap() {
        let jobs = (0..<10_000).map { job("com.example.j\($0)", interval: hours(1)) }
        var sim = Simulation(settings: settings(maxConcurrent: 8, dailyBudget: 100_000), jobs: jobs)
        sim.advance(by: minutes(1))
        #expect(sim.scheduler.ready.count > 9_000)
        let walked = sim.scheduler.firstByEarliestBegin(sim.scheduler.ready, 100)
        #expect(walked.count == 100)
        let summary = sim.scheduler.waitingSummary(now: sim.now, limit: 100)
        #expect(summary.work == Array(sim.scheduler.waiting(now: sim.now).prefix(100)))
    }
}
