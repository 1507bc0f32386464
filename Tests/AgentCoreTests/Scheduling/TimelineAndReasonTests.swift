// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// "Why didn't my job run?": every waiting job says why, `explain` tells the story.
@Suite struct SchedulingTimelineAndReasonTests {
    @Test func waitReasonsDescribeThemselvesWithoutTimes() {
        let t = morning
        let photos = BudgetStanding(account: "com.example.photos", used: 12, limit: 12, refillsAt: t)
        let shared = BudgetStanding(account: BudgetAccounts.fallback, used: 48, limit: 48, refillsAt: t)
        let expected: [(WaitReason, String)] = [
            (.interval(earliest: t), "interval"), (.budget(shared), "budget"),
            (.budget(photos), "budget of com.example.photos"), (.paused, "paused"),
            (.maxConcurrent, "max concurrent"), (.denied, "disabled"), (.restricted, "restricted"),
            (.triggerSpacing(earliest: t), "trigger spacing"), (.retry(earliest: t), "retry backoff"),
            (.catchUp(at: t), "catch-up"), (.running, "running"), (.notDue, "not due"),
        ]
        for (reason, text) in expected {
            #expect(reason.description == text)
        }
        #expect(WaitReason.budget(photos).time == t)
        #expect(WaitReason.paused.time == nil)
        #expect(SubmitRefusal.cannotStartNow(.maxConcurrent).description == "cannot start now: max concurrent")
    }

    @Test func explainTellsWhenItBecameDueEachDeferralAndEachRunWithItsStopReason() {
        var sim = Simulation(settings: settings(maxConcurrent: 1),
                             jobs: [job("com.example.long", .processing), job("com.example.feed", interval: hours(1))],
                             durations: ["com.example.long": minutes(10)])
        sim.advance(by: minutes(30))   // feed ran at once as a new job
        sim.send(.trigger(id("com.example.long")))  // runs 30–40 min: out of feed's way
        sim.advance(by: hours(1))
        let story = sim.scheduler.explain(id("com.example.feed")).map(\.event)
        #expect(story.first == .registered)
        #expect(story.contains(.becameDue(.scheduled, since: morning + hours(1))))
        #expect(story.contains(.launched(.scheduled)))
        #expect(story.contains { if case .ended(_, .success) = $0 { true } else { false } })

        // A deferral: feed due while long holds the only slot.
        var busy = Simulation(settings: settings(maxConcurrent: 1),
                              jobs: [job("com.example.long", .processing), job("com.example.feed", interval: hours(1))],
                              durations: ["com.example.long": hours(2)])
        busy.advance(by: minutes(1))
        busy.send(.trigger(id("com.example.long")))
        busy.advance(by: hours(1))
        let deferred = busy.scheduler.explain(id("com.example.feed")).map(\.event)
        #expect(deferred.suffix(2) == [.becameDue(.scheduled, since: morning + hours(1)), .deferred(.maxConcurrent)])
        #expect(busy.logs.contains("com.example.feed: due, deferred: max concurrent (1 of 1 runs live)"))
        busy.advance(by: hours(1) + .seconds(1))
        #expect(busy.launches(of: "com.example.feed").map(\.time) == [morning, morning + minutes(1) + hours(2)])
    }

    @Test func aJobOnlyRegisteredTellsItsRegistrationAndKeepsItWhenMoreHappens() {
        let feed = id("com.example.feed"), other = id("com.example.other")
        func line(_ key: Identifier, _ event: TimelineEvent, _ at: SchedulerTime) -> TimelineEntry {
            TimelineEntry(time: at, identifier: key, event: event)
        }
        var timeline = Timeline()
        timeline.record(feed, line(feed, .registered, morning), persistentKey: true)
        #expect(timeline.entries(feed) == [line(feed, .registered, morning)])
        #expect(timeline.entries(other) == nil)

        timeline.record(feed, line(feed, .triggered, morning + minutes(5)), persistentKey: true)
        #expect(timeline.entries(feed) == [line(feed, .registered, morning), line(feed, .triggered, morning + minutes(5))])

        // A changed definition registers again: both registrations are told, oldest first.
        timeline.record(other, line(other, .registered, morning), persistentKey: true)
        timeline.record(other, line(other, .registered, morning + hours(1)), persistentKey: true)
        #expect(timeline.entries(other)?.map(\.time) == [morning, morning + hours(1)])

        // Removed (no longer a registered job): the registration stays before the removal.
        let gone = id("com.example.gone")
        timeline.record(gone, line(gone, .registered, morning), persistentKey: true)
        timeline.record(gone, line(gone, .removed, morning + hours(2)), persistentKey: false)
        #expect(timeline.entries(gone)?.map(\.event) == [.registered, .removed])
    }

    /// A crowd of jobs registered, then all due: the registration-only table gives its storage
    /// back once every job has a timeline of its own.
    @Test func theRegistrationOnlyTableShrinksWhenEveryJobHasMoved() {
        var timeline = Timeline()
        let keys = (0..<1000).map { id("com.example.j\($0)") }
        for key in keys {
            timeline.record(key, TimelineEntry(time: morning, identifier: key, event: .registered), persistentKey: true)
        }
        #expect(timeline.registeredOnly.capacity >= 1000)
        for key in keys {
            timeline.record(key, TimelineEntry(time: morning + minutes(1), identifier: key, event: .triggered), persistentKey: true)
        }
        #expect(timeline.registeredOnly.capacity == 0)
        #expect(timeline.entries(keys[999])?.map(\.event) == [.registered, .triggered])
    }

    @Test func theTimelineKeepsTheLast100EntriesPerIdentifier() {
        var sim = Simulation(jobs: [job("com.example.push"), job("com.example.other")],
                             durations: ["com.example.push": nil])
        sim.send(.trigger(id("com.example.push")))
        for _ in 0..<300 { sim.send(.trigger(id("com.example.push"))) }
        sim.send(.trigger(id("com.example.other")))
        let entries = sim.scheduler.explain(id("com.example.push"))
        #expect(entries.count == 100)
        #expect(entries.allSatisfy { $0.event == .mergedTrigger || $0.event == .deferred(.running) })
        #expect(sim.scheduler.explain(id("com.example.other")).count < 10)
        #expect(sim.scheduler.explain(id("com.example.unknown")).isEmpty)
    }

    @Test func refusalsAreExplainedAndLogged() {
        var sim = Simulation(jobs: [job("com.example.export", .continued)])
        sim.send(.setEnabled(id("com.example.export"), false))
        sim.send(.submit(submission("com.example.export", request: 8)))
        #expect(sim.scheduler.explain(id("com.example.export")).last?.event
            == .refused(requestID: 8, .cannotStartNow(.denied)))
        #expect(sim.logs.last == "com.example.export: submission (request 8) refused: cannot start now: disabled")
    }

    @Test func manyJobsDeferredAtOnceWriteOneLogLine() {
        let definitions = (0..<50).map { job("com.example.bulk.\($0)", interval: hours(1)) }
        let sim = Simulation(settings: settings(maxConcurrent: 2), jobs: definitions)
        #expect(sim.launches.count == 2)
        let deferrals = sim.logs.filter { $0.contains("deferred") }
        #expect(deferrals == ["48 due jobs deferred: max concurrent (2 of 2 runs live)"])
        #expect(sim.scheduler.explain(id("com.example.bulk.9")).last?.event == .deferred(.maxConcurrent))
    }
}
