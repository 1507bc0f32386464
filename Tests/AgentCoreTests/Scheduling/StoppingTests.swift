// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §10: SIGTERM stops the agent: nothing new starts, queued work stays queued for the
/// next start (issue: a queued submission started when the live run was expired at SIGTERM).
@Suite struct SchedulingStoppingTests {
    @Test func aQueuedSubmissionDoesNotStartWhenTheAgentIsStoppingAndStaysPersisted() {
        var sim = Simulation(settings: settings(maxConcurrent: 1),
                             jobs: [job("com.example.export", .continued)],
                             durations: ["com.example.export": nil])
        sim.send(.submit(submission("com.example.export", request: 1, title: "first")))
        sim.send(.submit(submission("com.example.export", request: 2, title: "second")))
        #expect(sim.replies[2] == .accepted(position: 1))
        sim.send(.agentStopping)
        if let run = sim.run(of: "com.example.export") { sim.end(run, .agentRestart) }
        #expect(sim.launches.map { $0.submission?.requestID } == [1], "nothing starts while stopping")
        #expect(sim.scheduler.nextDeadline == nil, "no timer while stopping")
        let queued = sim.scheduler.snapshot.submissions
        #expect(queued.map(\.requestID) == [2])
        #expect(queued.first?.title == "second")
        let pending = sim.scheduler.waiting(now: sim.now)
        #expect(pending.first?.waitingFor == .agentStopping)
    }

    @Test func dueDiscretionaryWorkDoesNotStartWhileStopping() {
        var sim = Simulation(jobs: [job("com.example.feed", interval: hours(1))])
        sim.advance(by: .seconds(60))
        #expect(sim.launches.count == 1, "a new interval job runs at once")
        sim.send(.agentStopping)
        sim.advance(by: hours(3))
        #expect(sim.launches.count == 1, "nothing more while stopping")
    }

    @Test func whileStoppingQueueSubmissionsAreQueuedAndFailSubmissionsAreRefused() {
        var sim = Simulation(jobs: [job("com.example.export", .continued)])
        sim.send(.agentStopping)
        sim.send(.submit(submission("com.example.export", request: 1)))
        sim.send(.submit(submission("com.example.export", strategy: .fail, request: 2)))
        #expect(sim.replies[1] == .accepted(position: 1))
        #expect(sim.replies[2] == .refused(.cannotStartNow(.agentStopping)))
        #expect(sim.launches.isEmpty)
    }
}
