// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §12: one launcher. `simulate launch` and `run-if-stale` are scheduler events: the
/// scheduler decides, its `.launch` carries the definition, and its one-run-per-identifier and
/// stopping rules apply to them as to every launch.
@Suite struct SchedulingLaunchNowTests {
    @Test func aSimulatedLaunchStartsAtOnceWithTheDefinitionAndIsAnswered() {
        var scheduler = Scheduler(settings: settings(), calendar: .utc, seed: 1)
        let feed = job("com.example.feed", interval: hours(1))
        _ = scheduler.handle(.jobsChanged([feed]), now: morning)
        _ = scheduler.handle(.tick, now: morning)
        _ = scheduler.handle(.runEnded(feed.identifier, RunID(1), .success), now: morning + .seconds(5))
        let actions = scheduler.handle(.launchNow(feed.identifier, reason: .simulated, requestID: 7),
                                       now: morning + .seconds(60))
        #expect(actions.contains(.launch(LaunchOrder(job: feed, reason: .simulated, run: RunID(2), requestID: 7))))
        #expect(actions.last == .reply(requestID: 7, .accepted(position: 0)))
    }

    @Test func aSecondSimulatedLaunchOfARunningJobIsRefusedAsRunning() {
        var sim = Simulation(jobs: [job("com.example.feed")], durations: ["com.example.feed": nil])
        sim.send(.launchNow(id("com.example.feed"), reason: .simulated, requestID: 1))
        sim.send(.launchNow(id("com.example.feed"), reason: .simulated, requestID: 2))
        #expect(sim.replies[1] == .accepted(position: 0))
        #expect(sim.replies[2] == .refused(.cannotStartNow(.running)))
        #expect(sim.launches.count == 1)
    }

    @Test func aSimulatedLaunchCountsForTheIntervalLikeAnyRun() {
        var sim = Simulation(jobs: [job("com.example.feed", interval: hours(1))])
        sim.advance(by: .seconds(30))
        sim.advance(by: .seconds(30 * 60))
        sim.send(.launchNow(id("com.example.feed"), reason: .simulated, requestID: 1))
        sim.advance(by: .seconds(45 * 60))
        // Scheduled at start, simulated at 30 min; the next scheduled run waits an hour from it.
        #expect(sim.launches.map(\.reason) == [.scheduled, .simulated])
    }

    @Test func nothingIsLaunchedNowWhileTheAgentStops() {
        var sim = Simulation(jobs: [job("com.example.feed")])
        sim.send(.agentStopping)
        sim.send(.launchNow(id("com.example.feed"), reason: .simulated, requestID: 1))
        #expect(sim.replies[1] == .refused(.cannotStartNow(.agentStopping)))
        #expect(sim.launches.isEmpty)
    }

    /// run-if-stale is an app's fallback: a job a person disabled is not run by it; a
    /// person's `run` (reason manual) still runs it.
    @Test func runIfStaleDoesNotRunADisabledJobButRunDoes() {
        var sim = Simulation(jobs: [job("com.example.feed")], durations: ["com.example.feed": nil])
        sim.send(.setEnabled(id("com.example.feed"), false))
        sim.send(.launchNow(id("com.example.feed"), reason: .triggered, requestID: 1))
        #expect(sim.replies[1] == .refused(.cannotStartNow(.denied)))
        sim.send(.launchNow(id("com.example.feed"), reason: .manual, requestID: 2))
        #expect(sim.replies[2] == .accepted(position: 0))
    }

    @Test func anUnknownJobCannotBeLaunchedNow() {
        var sim = Simulation(jobs: [])
        sim.send(.launchNow(id("com.example.none"), reason: .simulated, requestID: 1))
        #expect(sim.replies[1] == .refused(.notPermitted))
    }
}
