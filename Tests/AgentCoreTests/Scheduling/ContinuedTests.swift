// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §4: continued runs start only from `agentctl submit`; a queue of 16 per job;
/// `--strategy fail` refuses at once; only restricted, denied and MaxConcurrent apply.
@Suite struct SchedulingContinuedTests {
    /// Issue #4 (e): 16 queued then the 17th refused; `fail` refused with max concurrent;
    /// `queue` starts when a slot frees.
    @Test func sixteenQueueThe17thIsTooManyPendingFailIsRefusedAndQueueStartsWhenASlotFrees() {
        var sim = Simulation(settings: settings(maxConcurrent: 1),
                             jobs: [job("com.example.export", .continued)],
                             durations: ["com.example.export": nil])
        sim.send(.submit(submission("com.example.export", request: 100, title: "first")))
        #expect(sim.replies[100] == .accepted(position: 0))
        for request in 1...16 {
            sim.send(.submit(submission("com.example.export", request: Int64(request))))
            #expect(sim.replies[Int64(request)] == .accepted(position: request))
        }
        sim.send(.submit(submission("com.example.export", request: 17)))
        #expect(sim.replies[17] == .refused(.tooManyPending))
        sim.send(.submit(submission("com.example.export", strategy: .fail, request: 18)))
        #expect(sim.replies[18] == .refused(.cannotStartNow(.maxConcurrent)))
        #expect(sim.launches.count == 1)

        let pending = sim.scheduler.waiting(now: sim.now)
        #expect(pending.count == 16)
        #expect(pending.map { $0.submission?.requestID } == (1...16).map { Int64($0) })
        #expect(pending.allSatisfy { $0.waitingFor == .maxConcurrent && $0.kind == .continued })

        if let run = sim.run(of: "com.example.export") { sim.end(run) }
        #expect(sim.launches.map { $0.submission?.requestID } == [100, 1])
        #expect(sim.launches.last?.reason == .submitted)
        if let run = sim.run(of: "com.example.export") { sim.end(run) }
        #expect(sim.launches.map { $0.submission?.requestID } == [100, 1, 2])
        // A place freed in the queue: a new submission is accepted again, at the back.
        sim.send(.submit(submission("com.example.export", request: 19)))
        #expect(sim.replies[19] == .accepted(position: 15))
    }

    @Test func everySubmitGetsExactlyOneReplyAfterThePersist() {
        var scheduler = Scheduler(settings: settings(maxConcurrent: 1), calendar: .utc, seed: 1)
        _ = scheduler.handle(.jobsChanged([job("com.example.export", .continued)]), now: morning)
        let first = scheduler.handle(.submit(submission("com.example.export", request: 1)), now: morning)
        let second = scheduler.handle(.submit(submission("com.example.export", request: 2)), now: morning)
        for actions in [first, second] {
            let replies = actions.indices.filter { if case .reply = actions[$0] { true } else { false } }
            let persists = actions.indices.filter { if case .persist = actions[$0] { true } else { false } }
            #expect(replies.count == 1)
            #expect(persists.count == 1)
            #expect((persists.first ?? 0) < (replies.first ?? 0))
        }
        #expect(first.first == .launch(LaunchOrder(job: job("com.example.export", .continued), reason: .submitted,
                                       run: RunID(1), submission: submission("com.example.export", request: 1))))
        #expect(second.last == .reply(requestID: 2, .accepted(position: 1)))
    }

    @Test func aSubmissionForAnUnknownOrNonContinuedJobIsNotPermitted() {
        var sim = Simulation(jobs: [job("com.example.feed", interval: hours(1))])
        sim.send(.submit(submission("com.example.nothing", request: 1)))
        sim.send(.submit(submission("com.example.feed", request: 2)))
        #expect(sim.replies[1] == .refused(.notPermitted))
        #expect(sim.replies[2] == .refused(.notPermitted))
    }

    @Test func continuedIgnoresPauseAndBudgetButNotMaxConcurrent() {
        var sim = Simulation(settings: settings(maxConcurrent: 1, dailyBudget: 0),
                             jobs: [job("com.example.export", .continued)],
                             durations: ["com.example.export": nil])
        sim.send(.setPaused(true))
        sim.send(.submit(submission("com.example.export", request: 1)))
        sim.send(.submit(submission("com.example.export", strategy: .fail, request: 2)))
        #expect(sim.replies[1] == .accepted(position: 0))
        #expect(sim.replies[2] == .refused(.cannotStartNow(.maxConcurrent)))
    }

    @Test func aDynamicIdentifierRunsUnderItsJobAndHasItsOwnTimeline() {
        let dynamic = id("com.example.export.4f1c")
        var sim = Simulation(jobs: [job("com.example.export", .continued)])
        sim.send(.submit(submission("com.example.export.4f1c", job: "com.example.export", request: 3)))
        #expect(sim.launches.first?.job == id("com.example.export"))
        #expect(sim.launches.first?.submission?.identifier == dynamic)
        #expect(sim.scheduler.liveRunCount == 1)  // started under the dynamic id: counted once
        sim.advance(by: minutes(1))
        #expect(sim.scheduler.liveRunCount == 0)
        let own = sim.scheduler.explain(dynamic).map(\.event)
        #expect(own.contains(.launched(.submitted)))
        #expect(own.contains { if case .ended(_, .success) = $0 { true } else { false } })
        #expect(sim.scheduler.explain(id("com.example.export")).contains { $0.identifier == dynamic })
    }

    @Test func cancelPendingDropsQueuedSubmissions() {
        var sim = Simulation(settings: settings(maxConcurrent: 1),
                             jobs: [job("com.example.export", .continued)],
                             durations: ["com.example.export": nil])
        sim.send(.submit(submission("com.example.export", request: 1)))
        sim.send(.submit(submission("com.example.export.a", job: "com.example.export", request: 2)))
        sim.send(.submit(submission("com.example.export.b", job: "com.example.export", request: 3)))
        sim.send(.cancelPending(id("com.example.export.a")))
        #expect(sim.scheduler.snapshot.submissions.map(\.requestID) == [3])
        sim.send(.cancelPending(id("com.example.export")))
        #expect(sim.scheduler.snapshot.submissions.isEmpty)
        #expect(sim.scheduler.waiting(now: sim.now).isEmpty)
    }

    /// iOS's `cancel(taskRequestWithIdentifier:)` cancels that identifier's request only: the
    /// job's own identifier, withdrawn exactly, leaves its dynamic identifiers' submissions.
    @Test func anExactWithdrawalOfAJobsOwnIdentifierLeavesItsDynamicSubmissions() {
        var sim = Simulation(settings: settings(maxConcurrent: 1),
                             jobs: [job("com.example.export", .continued)],
                             durations: ["com.example.export": nil])
        sim.send(.submit(submission("com.example.export.a", job: "com.example.export", request: 1)))
        sim.send(.submit(submission("com.example.export", request: 2)))
        sim.send(.submit(submission("com.example.export.b", job: "com.example.export", request: 3)))
        sim.send(.submit(submission("com.example.export", request: 4)))
        #expect(sim.scheduler.withdrawable(id("com.example.export"), exactly: true).submissions == 2)
        #expect(sim.scheduler.withdrawable(id("com.example.export")).submissions == 3)
        sim.send(.cancelPending(id("com.example.export"), exactly: true))
        #expect(sim.scheduler.snapshot.submissions.map(\.requestID) == [3])
        sim.send(.cancelPending(id("com.example.export.b"), exactly: true))
        #expect(sim.scheduler.snapshot.submissions.isEmpty)
    }

    @Test func queuedSubmissionsStartFIFOAcrossJobs() {
        var sim = Simulation(settings: settings(maxConcurrent: 1),
                             jobs: [job("com.example.a", .continued), job("com.example.b", .continued)],
                             durations: ["com.example.a": .seconds(10), "com.example.b": .seconds(10)])
        for (request, name) in [(1, "com.example.b"), (2, "com.example.a"), (3, "com.example.b"), (4, "com.example.a")] {
            sim.send(.submit(submission(name, request: Int64(request))))
        }
        sim.advance(by: minutes(1))
        #expect(sim.launches.map { $0.submission?.requestID } == [1, 2, 3, 4])
    }
}
