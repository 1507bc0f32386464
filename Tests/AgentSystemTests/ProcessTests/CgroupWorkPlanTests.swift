// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentSystem

/// What the cgroup worker does, decided from what the loop asked: the next runs' cgroups made
/// ahead while runs launch, none while none do, and nothing removed that a run may be using.
@Suite struct CgroupWorkPlanTests {
    private let second: UInt64 = 1_000_000_000

    private func made(_ number: UInt64) -> MadeRunCgroups {
        MadeRunCgroups(unified: "/cg/run-\(number)", pidsGroup: "/pids/run-\(number)")
    }

    /// Runs the plan's `make` steps, as the worker would, until it has nothing to do.
    private func makeAll(_ plan: inout CgroupWorkPlan, now: UInt64) -> [UInt64] {
        var numbers: [UInt64] = []
        while case .make(let number) = plan.next(now: now) {
            numbers.append(number)
            plan.made(number, made(number))
        }
        return numbers
    }

    @Test func nothingIsMadeBeforeTheFirstLaunch() {
        var plan = CgroupWorkPlan(ahead: 4, idleAfterNanoseconds: second)
        #expect(plan.next(now: 0) == .idle(nanoseconds: nil))
    }

    @Test func aLaunchHasTheNextRunsCgroupsMadeAndTheNextRunTakesItsOwn() {
        var plan = CgroupWorkPlan(ahead: 4, idleAfterNanoseconds: second)
        #expect(plan.take(5, now: 0) == nil)
        #expect(makeAll(&plan, now: 1) == [6, 7, 8, 9])
        // Made as far ahead as asked, it idles until launches have stopped for a second.
        #expect(plan.next(now: 1) == .idle(nanoseconds: second - 1))
        #expect(plan.take(6, now: 2) == made(6))
        #expect(makeAll(&plan, now: 3) == [10])
    }

    @Test func cgroupsOfNumbersThatNeverLaunchedGoWithoutKillingAnything() {
        var plan = CgroupWorkPlan(ahead: 4, idleAfterNanoseconds: second)
        _ = plan.take(1, now: 0)
        _ = makeAll(&plan, now: 0)
        // Runs 2 and 3 were refused before their cgroups were due (an unsafe plugin).
        #expect(plan.take(4, now: 1) == made(4))
        #expect(plan.removals == ["/cg/run-2", "/pids/run-2", "/cg/run-3", "/pids/run-3"]
            .map { CgroupRemoval(path: $0, killingLeftovers: false) })
    }

    @Test func aRunThatLaunchesWhileItsCgroupIsBeingMadeKeepsTheDirectory() {
        var plan = CgroupWorkPlan(ahead: 4, idleAfterNanoseconds: second)
        _ = plan.take(1, now: 0)
        #expect(plan.next(now: 0) == .make(2))
        // The loop could not wait: it made (or found) run 2's directory itself.
        #expect(plan.take(2, now: 1) == nil)
        plan.made(2, made(2))
        #expect(plan.removals.isEmpty)
        #expect(plan.take(2, now: 2) == nil)
    }

    @Test func oneSecondAfterTheLastLaunchWhatWasMadeAheadGoes() {
        var plan = CgroupWorkPlan(ahead: 2, idleAfterNanoseconds: second)
        _ = plan.take(1, now: 0)
        #expect(makeAll(&plan, now: 0) == [2, 3])
        #expect(plan.next(now: second) == .trim(["/cg/run-2", "/pids/run-2", "/cg/run-3", "/pids/run-3"]
            .map { CgroupRemoval(path: $0, killingLeftovers: false) }))
        // An idle agent holds no cgroup of a run that has not happened, and waits without a timer.
        #expect(plan.next(now: second) == .idle(nanoseconds: nil))
        // The next launch makes its own cgroup and has the ones after it made again.
        #expect(plan.take(2, now: 5 * second) == nil)
        #expect(makeAll(&plan, now: 5 * second) == [3, 4])
    }

    @Test func endedRunsCgroupsGoFirstWhileEnoughIsMadeAheadAndAfterWhenItRunsLow() {
        var plan = CgroupWorkPlan(ahead: 4, idleAfterNanoseconds: second)
        let ended = CgroupRemoval(path: "/pids/run-1", killingLeftovers: true)
        _ = plan.take(1, now: 0)
        plan.remove([ended])
        // Nothing is made yet: the next launch would wait for a cgroup lock, the removal would not.
        #expect(plan.next(now: 0) == .make(2))
        plan.made(2, made(2))
        #expect(plan.next(now: 0) == .make(3))
        plan.made(3, made(3))
        #expect(plan.next(now: 0) == .remove([ended]))
    }

    @Test func atStopWhatWasMadeAheadAndEveryRemovalGoesThenTheWorkerStops() {
        var plan = CgroupWorkPlan(ahead: 2, idleAfterNanoseconds: second)
        _ = plan.take(1, now: 0)
        _ = makeAll(&plan, now: 0)
        plan.remove([CgroupRemoval(path: "/pids/run-1", killingLeftovers: true)])
        plan.stop()
        guard case .remove(let removals) = plan.next(now: 0) else {
            Issue.record("expected the removals first")
            return
        }
        #expect(Set(removals.map(\.path)) == ["/pids/run-1", "/cg/run-2", "/pids/run-2", "/cg/run-3", "/pids/run-3"])
        #expect(plan.next(now: 0) == .stop)
        // A launch racing the stop is not made ahead for.
        _ = plan.take(4, now: 0)
        #expect(plan.next(now: 0) == .stop)
    }
}
