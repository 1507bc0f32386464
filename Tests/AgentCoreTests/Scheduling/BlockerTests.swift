// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §6 and issue #4: the blockers of discretionary work, in order, each with its reason.
@Suite struct SchedulingBlockerTests {
    /// restricted → denied → running → paused → trigger spacing → budget → max concurrent.
    @Test func blockersApplyInOrderRestrictedDeniedRunningPausedSpacingBudgetMaxConcurrent() {
        let x = id("com.example.x")
        var sim = Simulation(settings: settings(maxConcurrent: 2, dailyBudget: 2),
                             jobs: [job("com.example.x"), job("com.example.y", .processing),
                                    job("com.example.z", .continued)])
        sim.durations[x] = .some(nil)
        sim.durations[id("com.example.y")] = .some(nil)
        sim.durations[id("com.example.z")] = .some(nil)
        sim.send(.trigger(x))                       // launches x (budget 1 of 2)
        sim.send(.trigger(id("com.example.y")))     // launches y (budget 2 of 2)
        sim.send(.trigger(x))                       // pending, merged while x runs
        sim.send(.setPaused(true))
        sim.send(.setEnabled(x, false))
        sim.send(.settingsChanged(settings(maxConcurrent: 2, dailyBudget: 2, deny: ["com.example.x"])))
        func reason() -> WaitReason? { sim.scheduler.waitReason(for: x, now: sim.now) }

        #expect(reason() == .restricted)
        sim.send(.settingsChanged(settings(maxConcurrent: 2, dailyBudget: 2)))
        #expect(reason() == .denied)
        sim.send(.setEnabled(x, true))
        // x's run is live, and its merged trigger waits for the spacing too: the spacing says when.
        #expect(reason() == .triggerSpacing(earliest: morning + minutes(15)))
        sim.advance(by: minutes(1))
        if let run = sim.run(of: "com.example.x") { sim.end(run) }
        #expect(reason() == .paused)
        sim.send(.setPaused(false))
        // The spacing ends at 08:15, but the budget (2 of 2) refills only at midnight: that is
        // when it can start, and what it waits for.
        #expect(reason().budgetRefill == midnightUTC + hours(24))
        sim.send(.settingsChanged(settings(maxConcurrent: 2, dailyBudget: 3)))
        #expect(reason() == .triggerSpacing(earliest: morning + minutes(15)))
        sim.send(.settingsChanged(settings(maxConcurrent: 2, dailyBudget: 2)))
        sim.send(.submit(submission("com.example.z", request: 1)))  // continued: fills slot 2 of 2
        sim.advance(to: morning + minutes(15))
        #expect(reason().budgetRefill == midnightUTC + hours(24))
        sim.send(.settingsChanged(settings(maxConcurrent: 2, dailyBudget: 3)))
        #expect(reason() == .maxConcurrent)
        #expect(sim.launches(of: "com.example.x").count == 1)
        if let run = sim.run(of: "com.example.y") { sim.end(run) }
        #expect(sim.launches(of: "com.example.x").map(\.reason) == [.triggered, .triggered])
        #expect(reason() == .running)
    }

    @Test func pauseDefersDiscretionaryButNotContinuedAndResumeLaunches() {
        var sim = Simulation(jobs: [job("com.example.feed", interval: hours(1)),
                                    job("com.example.export", .continued)])
        sim.send(.setPaused(true))
        sim.advance(by: hours(2))
        #expect(sim.launches(of: "com.example.feed").count == 1)
        #expect(sim.waiting("com.example.feed") == .paused)
        #expect(sim.scheduler.nextDeadline == nil)  // paused and idle: the agent sleeps
        sim.send(.submit(submission("com.example.export", request: 7)))
        #expect(sim.replies[7] == .accepted(position: 0))
        #expect(sim.launches(of: "com.example.export").count == 1)
        sim.send(.trigger(id("com.example.feed")))
        #expect(sim.launches(of: "com.example.feed").count == 1)
        sim.send(.setPaused(false))
        #expect(sim.launches(of: "com.example.feed").map(\.time) == [morning, morning + hours(2)])
        #expect(sim.scheduler.explain(id("com.example.feed")).contains { $0.event == .deferred(.paused) })
    }

    @Test func aDisabledJobIsDeniedAndADenyMatchIsRestricted() {
        var sim = Simulation(settings: settings(deny: ["com.example.blocked.*"]),
                             jobs: [job("com.example.feed", interval: hours(1)),
                                    job("com.example.blocked.feed", interval: hours(1)),
                                    job("com.example.export", .continued),
                                    job("com.example.blocked.export", .continued)])
        #expect(sim.launches.map(\.job) == [id("com.example.feed")])
        #expect(sim.waiting("com.example.blocked.feed") == .restricted)
        sim.send(.setEnabled(id("com.example.feed"), false))
        sim.advance(by: hours(5))
        #expect(sim.launches.count == 1)
        #expect(sim.waiting("com.example.feed") == .denied)
        #expect(sim.scheduler.nextDeadline == nil)
        sim.send(.setEnabled(id("com.example.export"), false))
        sim.send(.submit(submission("com.example.export", request: 1)))
        sim.send(.submit(submission("com.example.blocked.export", request: 2)))
        #expect(sim.replies[1] == .refused(.cannotStartNow(.denied)))
        #expect(sim.replies[2] == .refused(.cannotStartNow(.restricted)))
        sim.send(.setEnabled(id("com.example.feed"), true))
        #expect(sim.launches.map(\.time) == [morning, morning + hours(5)])
        #expect(sim.scheduler.snapshot.disabled == [id("com.example.export")])
    }

    @Test func maxConcurrent2With5DueJobsLaunches2ThenTheNextAsRunsEnd() {
        var sim = Simulation(settings: settings(maxConcurrent: 2))
        let names = ["com.example.a", "com.example.b", "com.example.c", "com.example.d", "com.example.e"]
        for (index, name) in names.enumerated() {
            sim.durations[id(name)] = .some(.seconds(Double(60 * (index + 1))))
        }
        sim.send(.jobsChanged(names.map { job($0, .processing, interval: hours(6)) }))
        sim.settle()
        #expect(sim.launches.map(\.job.rawValue) == ["com.example.a", "com.example.b"])
        #expect(sim.waiting("com.example.c") == .maxConcurrent)
        #expect(sim.scheduler.nextDeadline == nil)  // full: only a run's end changes that
        sim.advance(by: minutes(30))
        #expect(sim.launches.map(\.job.rawValue) == names)
        // a ends at 1 min → c; b ends at 2 min → d; c ends at 4 min → e.
        #expect(sim.launches.map(\.time) == [morning, morning, morning + minutes(1),
                                            morning + minutes(2), morning + minutes(4)])
        #expect(sim.scheduler.liveRunCount == 0)
    }

    @Test func maxConcurrentCountsRunsOfEveryKindAndRunsTheShellStarted() {
        var sim = Simulation(settings: settings(maxConcurrent: 2),
                             jobs: [job("com.example.export", .continued), job("com.example.push")])
        sim.durations[id("com.example.export")] = .some(nil)
        sim.send(.submit(submission("com.example.export", request: 1)))
        sim.send(.runStarted(id("com.example.manual"), RunID(900), reason: .simulated))
        sim.send(.trigger(id("com.example.push")))
        #expect(sim.launches(of: "com.example.push").isEmpty)
        #expect(sim.waiting("com.example.push") == .maxConcurrent)
        sim.send(.runEnded(id("com.example.manual"), RunID(900), .success))
        #expect(sim.launches(of: "com.example.push").count == 1)
    }

    @Test func aLaunchThatFailsToSpawnFreesItsSlot() {
        var scheduler = Scheduler(settings: settings(maxConcurrent: 1), calendar: .utc, seed: 1)
        _ = scheduler.handle(.jobsChanged([job("com.example.a"), job("com.example.b")]), now: morning)
        _ = scheduler.handle(.tick, now: morning)
        let first = scheduler.handle(.trigger(id("com.example.a")), now: morning)
        #expect(first.contains(.launch(LaunchOrder(job: job("com.example.a"), reason: .triggered, run: RunID(1)))))
        let blocked = scheduler.handle(.trigger(id("com.example.b")), now: morning)
        #expect(!blocked.contains { if case .launch = $0 { true } else { false } })
        // The shell could not start a: it reports the end without a start.
        let after = scheduler.handle(.runEnded(id("com.example.a"), RunID(1), .spawnFailed("no such file")),
                                     now: morning + .seconds(1))
        #expect(after.contains(.launch(LaunchOrder(job: job("com.example.b"), reason: .triggered, run: RunID(2)))))
    }
}
