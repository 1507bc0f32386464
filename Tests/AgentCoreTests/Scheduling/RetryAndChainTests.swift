// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `Retry=` backoff after failures and `OnSuccess=` chaining (issue #4 item 6).
@Suite struct SchedulingRetryAndChainTests {
    let backoff = RetryPolicy(shape: .exponential(initial: .seconds(30), cap: .seconds(3600)))

    /// Issue #4 (h): exponential 30s 1h — delays 30 s, 60 s, 120 s … capped at 1 h.
    @Test func retryBackoffExponential30s1hDoublesFromTheEndOfEachFailedRunUpToTheCap() {
        var sim = Simulation(settings: settings(dailyBudget: 1000),
                             jobs: [job("com.example.flaky", .processing, retry: backoff)])
        sim.outcome = { _, _ in .failure(exitStatus: 1) }
        sim.send(.trigger(id("com.example.flaky")))
        sim.advance(to: morning + hours(24))
        let launches = sim.launches
        #expect(launches.first?.reason == .triggered)
        #expect(launches.dropFirst().allSatisfy { $0.reason == .retry })
        // Each run takes 10 s; the delay counts from its end.
        let delays = zip(launches, launches.dropFirst()).map { earlier, later in
            later.time.duration(since: earlier.time + .seconds(10))
        }
        let expected: [Duration] = [30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600].map { .seconds($0) }
        #expect(Array(delays.prefix(10)) == expected)
        #expect(delays.allSatisfy { $0 <= .seconds(3600) })
        #expect(sim.scheduler.snapshot.consecutiveFailures[id("com.example.flaky")] == launches.count)
        #expect(sim.scheduler.explain(id("com.example.flaky")).contains {
            if case .retryScheduled = $0.event { true } else { false }
        })
    }

    @Test func crashedAndSpawnFailedRunsAreRetriedButExpiredOnesAreNot() {
        for (stop, retried) in [(StopReason.crashed(signal: 9), true), (.spawnFailed("no such file"), true),
                                (.expired(.maxRuntime), false), (.cancelled, false)]
        {
            var sim = Simulation(jobs: [job("com.example.a", retry: RetryPolicy(shape: .fixed(.seconds(30))))])
            sim.outcome = { _, _ in stop }
            sim.send(.trigger(id("com.example.a")))
            sim.advance(by: .seconds(45))
            #expect(sim.launches.count == (retried ? 2 : 1), "\(stop)")
        }
    }

    @Test func aSuccessResetsFailuresAndDropsThePendingRetry() {
        var sim = Simulation(jobs: [job("com.example.a", retry: RetryPolicy(shape: .fixed(minutes(5))))])
        sim.outcome = { _, _ in .failure(exitStatus: 2) }
        sim.send(.trigger(id("com.example.a")))
        sim.advance(by: .seconds(20))
        #expect(sim.scheduler.snapshot.pendingRetries[id("com.example.a")] == morning + .seconds(10) + minutes(5))
        #expect(sim.waiting("com.example.a") == .retry(earliest: morning + .seconds(10) + minutes(5)))
        // A run the shell starts itself (simulate launch) succeeds meanwhile.
        sim.send(.runStarted(id("com.example.a"), RunID(77), reason: .simulated))
        sim.send(.runEnded(id("com.example.a"), RunID(77), .success))
        #expect(sim.scheduler.snapshot.consecutiveFailures.isEmpty)
        #expect(sim.scheduler.snapshot.pendingRetries.isEmpty)
        #expect(sim.scheduler.snapshot.lastSuccess[id("com.example.a")] == sim.now)
        #expect(sim.scheduler.nextDeadline == nil)
        sim.advance(by: hours(1))
        #expect(sim.launches.count == 1)
    }

    @Test func aFailureWithoutRetryCountsButSchedulesNothing() {
        var sim = Simulation(jobs: [job("com.example.a")])
        sim.outcome = { _, _ in .failure(exitStatus: 1) }
        sim.send(.trigger(id("com.example.a")))
        sim.advance(by: hours(1))
        #expect(sim.launches.count == 1)
        #expect(sim.scheduler.snapshot.consecutiveFailures[id("com.example.a")] == 1)
        #expect(sim.scheduler.nextDeadline == nil)
    }

    @Test func onSuccessLaunchesTheNamedJobWithReasonChained() {
        var sim = Simulation(jobs: [job("com.example.download", .processing, onSuccess: "com.example.index"),
                                    job("com.example.index", .processing, interval: hours(24))])
        sim.advance(by: minutes(1))  // index ran once as a new job
        sim.send(.trigger(id("com.example.download")))
        sim.advance(by: minutes(1))
        #expect(sim.launches.map(\.reason) == [.scheduled, .triggered, .chained])
        #expect(sim.launches.last?.job == id("com.example.index"))
        #expect(sim.launches.last?.time == morning + minutes(1) + .seconds(10))
    }

    /// Issue 15 item 1: the chained run gets the previous run's id and result.
    @Test func aChainedLaunchCarriesThePreviousRunsIDAndResult() {
        var sim = Simulation(jobs: [job("com.example.download", .processing, onSuccess: "com.example.unpack"),
                                    job("com.example.unpack", .processing, interval: hours(24))])
        sim.result = { name, _ in name == id("com.example.download") ? "/srv/nightly.tar" : nil }
        sim.advance(by: minutes(1))  // unpack ran once as a new job, with nothing handed on
        #expect(sim.launches.first?.chainedInput == nil)
        sim.send(.trigger(id("com.example.download")))
        sim.advance(by: minutes(1))
        let download = sim.launches.first { $0.job == id("com.example.download") }
        let chained = sim.launches.last
        #expect(chained?.reason == .chained)
        #expect(chained?.chainedInput == download.map { ChainedInput(previousRunID: $0.run, previousResult: "/srv/nightly.tar") })
    }

    @Test func aChainedRunAfterARunWithoutResultGetsTheRunIDAlone() {
        var sim = Simulation(jobs: [job("com.example.a", onSuccess: "com.example.b"), job("com.example.b")])
        sim.send(.setEnabled(id("com.example.b"), false))
        sim.send(.trigger(id("com.example.a")))
        sim.advance(by: minutes(1))
        sim.send(.setEnabled(id("com.example.b"), true))
        let first = sim.launches.first { $0.job == id("com.example.a") }
        #expect(sim.launches.last?.reason == .chained)
        #expect(sim.launches.last?.chainedInput == first.map { ChainedInput(previousRunID: $0.run, previousResult: nil) })
        // A later launch of the same job, not chained, is handed nothing.
        sim.send(.trigger(id("com.example.b")))
        sim.advance(by: minutes(20))
        #expect(sim.launches.last?.reason == .triggered)
        #expect(sim.launches.last?.chainedInput == nil)
    }

    @Test func aChainedRunIsSubjectToTheBlockersExceptTheInterval() {
        var sim = Simulation(jobs: [job("com.example.download", onSuccess: "com.example.index"),
                                    job("com.example.index", interval: hours(24))])
        sim.send(.setEnabled(id("com.example.index"), false))
        sim.send(.trigger(id("com.example.download")))
        sim.advance(by: minutes(1))
        #expect(sim.waiting("com.example.index") == .denied)
        #expect(sim.scheduler.snapshot.pendingChained == [id("com.example.index")])
        sim.send(.setEnabled(id("com.example.index"), true))
        #expect(sim.launches.map(\.reason) == [.scheduled, .triggered, .chained])
        #expect(sim.scheduler.snapshot.pendingChained.isEmpty)
    }

    @Test func aFailedRunChainsNothingAndAnUnregisteredTargetIsLogged() {
        var sim = Simulation(jobs: [job("com.example.a", onSuccess: "com.example.missing"),
                                    job("com.example.b", onSuccess: "com.example.c"),
                                    job("com.example.c")])
        sim.outcome = { name, _ in name == id("com.example.b") ? .failure(exitStatus: 1) : .success }
        sim.send(.trigger(id("com.example.a")))
        sim.send(.trigger(id("com.example.b")))
        sim.advance(by: minutes(1))
        #expect(sim.launches(of: "com.example.c").isEmpty)
        #expect(sim.logs.contains { $0.contains("OnSuccess=com.example.missing is not a registered job") })
    }
}

/// Issue 10 item 9: an `OnSuccess=` cycle that reaches the scheduler (A → B → A) must not burn
/// the day's budget: each identifier is chained at most once per `TriggerSpacing`.
@Suite struct SchedulingChainCycleTests {
    @Test func aChainCycleRunsAtMostOncePerTriggerSpacingPerIdentifier() {
        var sim = Simulation(settings: settings(dailyBudget: 1000, triggerSpacing: minutes(15)),
                             jobs: [job("com.example.a", .processing, onSuccess: "com.example.b"),
                                    job("com.example.b", .processing, onSuccess: "com.example.a")])
        sim.send(.trigger(id("com.example.a")))
        sim.advance(by: hours(1))
        for name in ["com.example.a", "com.example.b"] {
            let chained = sim.launches(of: name).filter { $0.reason == .chained }.map(\.time)
            #expect(!chained.isEmpty, "\(name) was never chained")
            #expect(chained.count <= 5, "\(name) chained \(chained.count) times in an hour")
            for (earlier, later) in zip(chained, chained.dropFirst()) {
                #expect(later.duration(since: earlier) >= minutes(15), "\(name): \(earlier) → \(later)")
            }
        }
        #expect(sim.logs.contains { $0.contains("was chained less than TriggerSpacing=15min ago") })
    }

    /// agentd.conf is picked up live (DESIGN §3): a chained request held by the old spacing
    /// waits for the new one, as a pending trigger does.
    @Test func aChainedRequestHeldBySpacingFollowsALiveChangeOfIt() {
        var sim = Simulation(settings: settings(dailyBudget: 1000, triggerSpacing: minutes(15)),
                             jobs: [job("com.example.a", .processing, onSuccess: "com.example.b"),
                                    job("com.example.b", .processing)])
        sim.send(.trigger(id("com.example.a")))
        sim.advance(by: minutes(1))
        #expect(sim.launches(of: "com.example.b").count == 1)
        sim.send(.launchNow(id("com.example.a"), reason: .manual, requestID: 1))
        sim.advance(by: minutes(1))
        #expect(sim.launches(of: "com.example.b").count == 1, "the second chain waits for the spacing")
        sim.send(.settingsChanged(settings(dailyBudget: 1000, triggerSpacing: .seconds(1))))
        sim.advance(by: .seconds(5))
        #expect(sim.launches(of: "com.example.b").count == 2, "held by the old 15 min after the change to 1 s")
    }
}
