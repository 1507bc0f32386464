// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §10: pending requests, last runs, budget and disabled state survive a restart.
@Suite struct SchedulingPersistenceTests {
    static let jobs = [
        job("com.example.feed", interval: hours(1)),
        job("com.example.push"),
        job("com.example.flaky", .processing, retry: RetryPolicy(shape: .fixed(minutes(5)))),
        job("com.example.nightly", .processing, interval: hours(24)),
        job("com.example.export", .continued),
        job("com.example.render", .continued),
    ]

    /// A scheduler with one of every kind of pending work, at `morning + 2.5 min`.
    static func busy() -> Simulation {
        var sim = Simulation(settings: settings(maxConcurrent: 1, dailyBudget: 20), jobs: jobs,
                             durations: ["com.example.render": nil])
        sim.outcome = { name, _ in name == id("com.example.flaky") ? .failure(exitStatus: 1) : .success }
        sim.advance(by: .seconds(30))  // the new interval jobs run once
        sim.send(.setEnabled(id("com.example.nightly"), false))
        sim.send(.trigger(id("com.example.push")))
        sim.send(.trigger(id("com.example.flaky")))
        sim.advance(by: minutes(1))
        sim.send(.trigger(id("com.example.push")))  // waits for trigger spacing
        sim.send(.submit(submission("com.example.render", request: 1)))
        for request in 2...4 {
            sim.send(.submit(submission("com.example.export.\(request)", job: "com.example.export",
                                        request: Int64(request))))
        }
        sim.send(.setEnabled(id("com.example.export"), false))  // queued, now waiting "disabled"
        sim.advance(by: minutes(1))
        return sim
    }

    /// Issue #4 (i): snapshot → a new Scheduler `.restored(snapshot)` → the same pending work.
    @Test func aSnapshotRestoredIntoANewSchedulerGivesTheSamePendingWork() throws {
        let sim = Self.busy()
        let snapshot = sim.scheduler.snapshot
        #expect(sim.persisted == snapshot)
        let before = sim.scheduler.waiting(now: sim.now)
        #expect(Set(before.map(\.waitingFor.description))
            == ["interval", "trigger spacing", "retry backoff", "disabled"])

        let decoded = try JSONText.decode(PersistedSchedule.self, JSONText.encode(snapshot))
        #expect(decoded == snapshot)

        for restoredFirst in [true, false] {
            var restarted = Scheduler(settings: settings(maxConcurrent: 1, dailyBudget: 20),
                                      calendar: .utc, seed: 99)
            if restoredFirst { _ = restarted.handle(.restored(decoded), now: sim.now) }
            _ = restarted.handle(.jobsChanged(Self.jobs), now: sim.now)
            if !restoredFirst { _ = restarted.handle(.restored(decoded), now: sim.now) }
            #expect(restarted.waiting(now: sim.now) == before)
            #expect(restarted.snapshot == snapshot)
        }
    }

    @Test func theSnapshotEncodesIdentifierMapsAsJSONObjects() throws {
        var snapshot = PersistedSchedule()
        snapshot.lastRunStart[id("com.example.a")] = SchedulerTime(seconds: 10)
        snapshot.disabled = [id("com.example.b"), id("com.example.a")]
        let text = try JSONText.encode(snapshot)
        #expect(text.contains(#""lastRunStart":{"com.example.a":10}"#))
        #expect(text.contains(#""disabled":["com.example.a","com.example.b"]"#))
        // Older snapshots without the newer fields, and bad keys, still load.
        let old = try JSONText.decode(PersistedSchedule.self,
                                      #"{"paused":true,"lastSuccess":{"bad id":1,"com.example.a":2}}"#)
        #expect(old.paused)
        #expect(old.lastSuccess == [id("com.example.a"): SchedulerTime(seconds: 2)])
    }

    @Test func aBudgetLedgerFromAnotherDayIsNotCarriedOver() {
        var snapshot = PersistedSchedule()
        snapshot.budgetDay = "2026-11-29"
        snapshot.budgetSpent = 48
        let stale = Simulation(restored: snapshot)
        #expect(stale.scheduler.budgetRemaining(now: morning) == 48)
        snapshot.budgetDay = "2026-11-30"
        let today = Simulation(restored: snapshot)
        #expect(today.scheduler.budgetRemaining(now: morning) == 0)
    }

    @Test func restoredRequestsForJobsThatAreGoneAreDropped() {
        var snapshot = PersistedSchedule()
        snapshot.pendingTriggers = [id("com.example.gone"), id("com.example.push")]
        snapshot.submissions = [submission("com.example.gone", request: 5)]
        let sim = Simulation(jobs: [job("com.example.push")], restored: snapshot)
        #expect(sim.scheduler.snapshot.submissions.isEmpty)
        // A restored trigger is overdue work too: the most overdue (here the only) catch-up slot
        // is at once, and it runs as what it is.
        #expect(sim.launches.map { "\($0.job) \($0.reason)" } == ["com.example.push triggered"])
        #expect(sim.scheduler.snapshot.pendingTriggers.isEmpty)
        #expect(sim.logs.contains { $0.contains("com.example.gone") && $0.contains("dropped") })
    }
}

/// Issue #2/#4: persistence writes what an event touched, not the whole schedule.
@Suite struct IncrementalPersistenceTests {
    @Test func anEventPersistsOnlyTheIdentifiersItTouched() {
        let jobs = (0..<1000).map { job("com.example.j\($0)", interval: hours(1)) }
        var sim = Simulation(settings: settings(maxConcurrent: 1000, dailyBudget: 5000), jobs: jobs)
        sim.advance(by: minutes(1))
        let actions = sim.send(.trigger(id("com.example.j5")))
        let changes = actions.compactMap { action -> ScheduleChanges? in
            if case .persist(let c, let cadence) = action { return cadence == .now ? c : nil }
            return nil
        }
        #expect(changes.count == 1)
        #expect(Set(changes.first?.records.keys ?? [:].keys) == [id("com.example.j5")])
        #expect(sim.persisted == sim.scheduler.snapshot)
    }

    @Test func historyAloneIsNotARequestAndMayBeBatched() {
        var sim = Simulation(settings: settings(maxConcurrent: 4, dailyBudget: 50),
                             jobs: [job("com.example.feed", interval: hours(1))])
        sim.advance(by: minutes(1))
        let ended = sim.launches.count
        sim.advance(by: hours(1) + minutes(1))
        #expect(sim.launches.count == ended + 1)
        #expect(sim.persisted == sim.scheduler.snapshot)
    }

    @Test func aRowWithNothingLeftIsDeleted() {
        var schedule = PersistedSchedule()
        schedule.pendingTriggers = [id("com.example.a")]
        let cleared = schedule.applying(ScheduleChanges(
            records: [id("com.example.a"): IdentifierSchedule()], globals: .empty))
        #expect(cleared.recordedIdentifiers.isEmpty)
        #expect(IdentifierSchedule().isEmpty)
    }
}
