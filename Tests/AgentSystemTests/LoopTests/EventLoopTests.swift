// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
import AgentCore
@testable import AgentSystem

@Suite("EventLoop")
struct EventLoopTests {
    @Test("urgent handlers run first, then due timers, then the other handlers")
    func urgentHandlersAndDueTimersGoFirst() throws {
        let loop = try EventLoop()
        let ordinary = try TestPipe()
        let urgent = try TestPipe()
        ordinary.write("x")
        urgent.write("y")
        var calls: [String] = []
        _ = try loop.watch(fd: ordinary.readEnd, events: .readable) { _ in
            calls.append("ordinary")
            ordinary.drain()
        }
        _ = try loop.watch(fd: urgent.readEnd, events: .readable, urgent: true) { _ in
            calls.append("urgent")
            urgent.drain()
        }
        _ = loop.schedule(at: MonotonicInstant.now()) { calls.append("timer") }
        // Both pipes are readable and the timer is due before the wait: one batch.
        loop.runOnce(timeout: .seconds(10))
        #expect(calls == ["urgent", "timer", "ordinary"])
    }

    @Test("a timer that comes due during a long batch of handlers fires between slices of it")
    func aTimerDueDuringABurstDoesNotWaitForTheWholeBurst() throws {
        let loop = try EventLoop()
        let pipes = try (0..<24).map { _ in try TestPipe() }
        var calls: [String] = []
        for (number, pipe) in pipes.enumerated() {
            pipe.write("x")
            _ = try loop.watch(fd: pipe.readEnd, events: .readable) { _ in
                // Each handler takes at least a millisecond (a run end's bookkeeping, say).
                let until = MonotonicInstant.now() + .milliseconds(1)
                while MonotonicInstant.now() < until {}
                calls.append("handler \(number)")
                pipe.drain()
            }
        }
        _ = loop.schedule(at: MonotonicInstant.now() + .milliseconds(3)) { calls.append("timer") }
        loop.runOnce(timeout: .seconds(10))
        let position = try #require(calls.firstIndex(of: "timer"))
        #expect(calls.count == 25)
        // Due after three handlers at the latest: it waits for the handler then running, not for all 24.
        #expect(position <= 4, "\(calls)")
    }

    @Test("an urgent watch that becomes ready during a long batch is served between slices of it")
    func aRequestArrivingDuringABurstDoesNotWaitForTheWholeBurst() throws {
        let loop = try EventLoop()
        let pipes = try (0..<24).map { _ in try TestPipe() }
        let urgent = try TestPipe()
        var calls: [String] = []
        for (number, pipe) in pipes.enumerated() {
            pipe.write("x")
            _ = try loop.watch(fd: pipe.readEnd, events: .readable) { _ in
                // Each handler takes longer than the interval between looks (a run end does).
                let until = MonotonicInstant.now() + EventLoop.urgentLookInterval
                while MonotonicInstant.now() < until {}
                // The request comes in while the second handler of the burst runs.
                if number == 1 { urgent.write("status") }
                calls.append("handler \(number)")
                pipe.drain()
            }
        }
        _ = try loop.watch(fd: urgent.readEnd, events: .readable, urgent: true) { _ in
            calls.append("urgent")
            urgent.drain()
        }
        loop.runOnce(timeout: .seconds(10))
        let position = try #require(calls.firstIndex(of: "urgent"), "\(calls)")
        #expect(calls.count == 25)
        #expect(position == 2, "served at the first look after it arrived (after handler 1): \(calls)")
    }

    @Test("an urgent watch served at the start of an iteration waits for the next one, however long the batch")
    func aPipeliningClientGetsOneTurnAnIteration() throws {
        let loop = try EventLoop()
        let pipes = try (0..<24).map { _ in try TestPipe() }
        let client = try TestPipe()
        var calls: [String] = []
        for (number, pipe) in pipes.enumerated() {
            pipe.write("x")
            _ = try loop.watch(fd: pipe.readEnd, events: .readable) { _ in
                calls.append("handler \(number)")
                pipe.drain()
            }
        }
        client.write("many requests")
        var one = [UInt8](repeating: 0, count: 1)
        _ = try loop.watch(fd: client.readEnd, events: .readable, urgent: true) { _ in
            // One request a turn: the pipe stays readable.
            _ = read(client.readEnd, &one, 1)
            calls.append("client")
        }
        loop.runOnce(timeout: .seconds(10))
        #expect(calls.filter { $0 == "client" }.count == 1, "\(calls)")
        #expect(calls.first == "client")
        loop.runOnce(timeout: .seconds(10))
        #expect(calls.filter { $0 == "client" }.count == 2, "its next turn is in the next iteration")
    }

    @Test("an everySlice watch (the listening socket) is served at each look, also after the iteration's start")
    func aConnectionArrivingAfterTheIterationAcceptedOneIsNotKeptWaiting() throws {
        let loop = try EventLoop()
        let pipes = try (0..<12).map { _ in try TestPipe() }
        let listener = try TestPipe()
        var calls: [String] = []
        for (number, pipe) in pipes.enumerated() {
            pipe.write("x")
            _ = try loop.watch(fd: pipe.readEnd, events: .readable) { _ in
                let until = MonotonicInstant.now() + EventLoop.urgentLookInterval
                while MonotonicInstant.now() < until {}
                // The next connection comes in while the second handler runs.
                if number == 1 { listener.write("c") }
                calls.append("handler \(number)")
                pipe.drain()
            }
        }
        listener.write("c")
        _ = try loop.watch(fd: listener.readEnd, events: .readable, urgent: true, everySlice: true) { _ in
            calls.append("accept")
            listener.drain()
        }
        loop.runOnce(timeout: .seconds(10))
        #expect(calls.filter { $0 == "accept" }.count == 2, "\(calls)")
        #expect(calls.first == "accept")
        #expect(calls.lastIndex(of: "accept") ?? 99 <= 4, "\(calls)")
    }

    @Test("timers fire in deadline order, never before their deadline")
    func timersFireInDeadlineOrder() throws {
        let loop = try EventLoop()
        let start = MonotonicInstant.now()
        var fired: [(name: String, deadline: MonotonicInstant, at: MonotonicInstant)] = []
        let plan: [(String, Duration)] = [("a", .milliseconds(60)), ("b", .milliseconds(20)),
                                          ("c", .milliseconds(40)), ("d", .milliseconds(20)),
                                          ("e", .zero)]
        for (name, offset) in plan {
            let deadline = start + offset
            loop.schedule(at: deadline) {
                fired.append((name, deadline, MonotonicInstant.now()))
                if fired.count == plan.count { loop.stop() }
            }
        }
        #expect(runLoop(loop))
        // Equal deadlines keep scheduling order (b before d).
        #expect(fired.map(\.name) == ["e", "b", "d", "c", "a"])
        for entry in fired {
            #expect(entry.at >= entry.deadline, "timer \(entry.name) fired early")
        }
        #expect(loop.timerCount == 0)
    }

    @Test("a cancelled timer never fires, also when cancelled by a timer due in the same pass")
    func cancelledTimersDoNotFire() throws {
        let loop = try EventLoop()
        let start = MonotonicInstant.now()
        var log: [String] = []
        let early = loop.schedule(at: start + .milliseconds(10)) { log.append("early") }
        loop.cancel(early)
        #expect(!loop.isScheduled(early))
        // Both due at the same instant; the first cancels the second before it can run.
        var second: TimerToken?
        loop.schedule(at: start + .milliseconds(30)) {
            log.append("first")
            if let second { loop.cancel(second) }
        }
        second = loop.schedule(at: start + .milliseconds(30)) { log.append("second") }
        loop.schedule(at: start + .milliseconds(50)) {
            log.append("last")
            loop.stop()
        }
        loop.cancel(TimerToken(id: 9_999))  // unknown: ignored
        #expect(runLoop(loop))
        #expect(log == ["first", "last"])
        loop.cancel(early)  // already cancelled: ignored
    }

    @Test("the timerfd is re-armed when an earlier timer is inserted, and only then")
    func earlierInsertRearms() throws {
        let loop = try EventLoop()
        let far = MonotonicInstant.now() + .seconds(600)
        let farToken = loop.schedule(at: far) { Issue.record("far timer fired") }
        loop.runOnce(timeout: .zero)
        #expect(loop.armedTimerDeadline == far.nanoseconds)

        // A later timer leaves the timerfd alone.
        let laterToken = loop.schedule(at: far + .seconds(60)) { Issue.record("later timer fired") }
        loop.runOnce(timeout: .zero)
        #expect(loop.armedTimerDeadline == far.nanoseconds)

        // An earlier one re-arms it: the loop, blocked with no timeout, wakes for it.
        let near = MonotonicInstant.now() + .milliseconds(20)
        var nearFiredAt: MonotonicInstant?
        loop.schedule(at: near) {
            nearFiredAt = loop.now
            loop.stop()
        }
        #expect(runLoop(loop, limit: .seconds(30)))
        #expect(try #require(nearFiredAt) >= near)
        // After it fired, the earliest is the far timer again.
        loop.runOnce(timeout: .zero)
        #expect(loop.armedTimerDeadline == far.nanoseconds)

        // Cancelling the earliest moves it to the next one; cancelling all disarms it.
        loop.cancel(farToken)
        loop.runOnce(timeout: .zero)
        #expect(loop.armedTimerDeadline == (far + .seconds(60)).nanoseconds)
        loop.cancel(laterToken)
        loop.runOnce(timeout: .zero)
        #expect(loop.armedTimerDeadline == 0)
    }

    @Test("an idle loop sleeps: no wakeup without an event")
    func idleLoopDoesNotWake() throws {
        let loop = try EventLoop()
        let before = loop.iterations
        let start = MonotonicInstant.now()
        loop.runOnce(timeout: .milliseconds(100))
        #expect(loop.iterations == before + 1)
        #expect(start.duration(to: MonotonicInstant.now()) >= .milliseconds(100))
        #expect(loop.armedTimerDeadline == 0)
    }

    @Test("timers scheduled in the past from a timer wait for the next iteration")
    func pastTimersFromTimersDoNotStarve() throws {
        let loop = try EventLoop()
        var rounds = 0
        var iterationsSeen: [UInt64] = []
        func again() {
            rounds += 1
            iterationsSeen.append(loop.iterations)
            if rounds == 5 {
                loop.stop()
            } else {
                loop.schedule(at: .zero, again)
            }
        }
        loop.schedule(at: .zero, again)
        #expect(runLoop(loop))
        #expect(rounds == 5)
        // One round per iteration: strictly increasing iteration numbers.
        #expect(zip(iterationsSeen, iterationsSeen.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("unwatch inside a handler, also for an event pending in the same batch")
    func unwatchInsideHandler() throws {
        let loop = try EventLoop()
        let first = try TestPipe()
        let second = try TestPipe()
        first.write("x")
        second.write("y")
        var calls: [String] = []
        var tokenA: WatchToken?
        var tokenB: WatchToken?
        tokenA = try loop.watch(fd: first.readEnd, events: .readable) { _ in
            calls.append("a")
            if let tokenA { loop.unwatch(tokenA) }
            if let tokenB { loop.unwatch(tokenB) }
        }
        tokenB = try loop.watch(fd: second.readEnd, events: .readable) { _ in
            calls.append("b")
            if let tokenA { loop.unwatch(tokenA) }
            if let tokenB { loop.unwatch(tokenB) }
        }
        // Both pipes are readable before the wait, so both events come in one batch.
        loop.runOnce(timeout: .seconds(10))
        #expect(calls.count == 1)
        // Still readable, but neither registration exists any more.
        loop.runOnce(timeout: .milliseconds(20))
        loop.runOnce(timeout: .zero)
        #expect(calls.count == 1)
        #expect(loop.watchCount == 0)
        // Unwatching again is harmless.
        if let tokenA { loop.unwatch(tokenA) }
    }

    @Test("a handler sees its events; change() switches interest")
    func watchAndChange() throws {
        let loop = try EventLoop()
        let pipe = try TestPipe()
        var seen: [IOEvents] = []
        let token = try loop.watch(fd: pipe.writeEnd, events: .writable) { events in
            seen.append(events)
        }
        loop.runOnce(timeout: .seconds(10))
        #expect(seen.count == 1)
        #expect(seen.first?.contains(.writable) == true)
        #expect(throws: SystemError.self) {
            _ = try loop.watch(fd: pipe.writeEnd, events: .writable) { _ in }
        }

        try loop.change(token, events: [])
        #expect(loop.events(of: token) == [])
        loop.runOnce(timeout: .milliseconds(20))
        #expect(seen.count == 1)

        try loop.change(token, events: .writable)
        loop.runOnce(timeout: .seconds(10))
        #expect(seen.count == 2)

        // Closing the read end makes the write end report an error, even with no interest left.
        // (Without interest, no writable event returns at once: a child another test is spawning
        // right now may hold a copy of the read end until its exec, and the error comes after.)
        try loop.change(token, events: [])
        close(pipe.readEnd)
        loop.runOnce(timeout: .seconds(10))
        #expect(seen.last?.contains(.error) == true, "\(seen)")
        loop.unwatch(token)
        #expect(throws: SystemError.self) { try loop.change(token, events: .writable) }
    }

    @Test("now is read once per iteration and is the same for every callback of it")
    func nowIsPerIteration() throws {
        let loop = try EventLoop()
        let pipe = try TestPipe()
        pipe.write("x")
        var nows: [MonotonicInstant] = []
        let token = try loop.watch(fd: pipe.readEnd, events: .readable) { _ in
            nows.append(loop.now)
            pipe.drain()
        }
        loop.schedule(at: .zero) { nows.append(loop.now) }
        loop.execute { nows.append(loop.now) }
        let before = MonotonicInstant.now()
        loop.runOnce(timeout: .seconds(10))
        #expect(nows.count == 3)
        #expect(Set(nows).count == 1)
        #expect(try #require(nows.first) >= before)
        loop.unwatch(token)
    }

    @Test("execute() runs after the current callback, before the loop sleeps again")
    func executeRunsBeforeSleeping() throws {
        let loop = try EventLoop()
        var order: [String] = []
        loop.schedule(at: .zero) {
            loop.execute { order.append("deferred") }
            order.append("timer")
        }
        loop.runOnce(timeout: .seconds(10))
        #expect(order == ["timer", "deferred"])
        // Work queued from outside a callback makes the next wait non-blocking.
        loop.execute { order.append("outside") }
        let start = MonotonicInstant.now()
        loop.runOnce()
        #expect(order.last == "outside")
        #expect(start.duration(to: .now()) < .seconds(5))
    }

    @Test("stop() from a handler ends run() after that iteration; run() can be resumed")
    func stopAndResume() throws {
        let loop = try EventLoop()
        var count = 0
        loop.schedule(at: .zero) {
            count += 1
            loop.stop()
        }
        #expect(runLoop(loop))
        loop.schedule(at: .zero) {
            count += 1
            loop.stop()
        }
        #expect(runLoop(loop))
        #expect(count == 2)
    }
}

@Suite("Timer queue")
struct TimerQueueTests {
    @Test("pops in (deadline, id) order with random inserts and removals")
    func randomizedAgainstSort() {
        var generator = SystemRandomNumberGenerator()
        var heap = DeadlineQueue<UInt64, TimerKey>()
        var reference: [(deadline: UInt64, id: UInt64)] = []
        var nextID: UInt64 = 1
        for round in 0..<4_000 {
            let choice = UInt64.random(in: 0..<10, using: &generator)
            if choice < 6 || reference.isEmpty {
                let deadline = UInt64.random(in: 0..<200, using: &generator)
                heap.set(nextID, TimerKey(deadline: deadline, id: nextID))
                reference.append((deadline, nextID))
                nextID += 1
            } else if choice < 8 {
                let index = Int.random(in: 0..<reference.count, using: &generator)
                let removed = heap.remove(reference[index].id)
                #expect(removed != nil)
                reference.remove(at: index)
            } else {
                reference.sort { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.id < $1.id }
                let popped = heap.popMin()
                #expect(popped?.key == reference.first?.id, "round \(round)")
                reference.removeFirst()
            }
            #expect(heap.count == reference.count)
        }
        reference.sort { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.id < $1.id }
        var drained: [UInt64] = []
        while let entry = heap.popMin() { drained.append(entry.key) }
        #expect(drained == reference.map(\.id))
        let removedAgain = heap.remove(1)
        #expect(removedAgain == nil)
    }
}

@Suite("Clocks")
struct ClockTests {
    @Test("MonotonicInstant arithmetic saturates and round-trips")
    func instantArithmetic() {
        let t = MonotonicInstant(nanoseconds: 5_000_000_000)
        #expect((t + .milliseconds(1_500)).nanoseconds == 6_500_000_000)
        #expect((t - .seconds(2)).nanoseconds == 3_000_000_000)
        #expect((t + .seconds(-2)).nanoseconds == 3_000_000_000)
        #expect((t - .seconds(10)).nanoseconds == 0)
        #expect((MonotonicInstant(nanoseconds: .max - 1) + .seconds(1)).nanoseconds == .max)
        #expect(t.duration(to: t + .microseconds(7)) == .microseconds(7))
        #expect((t + .seconds(3)).duration(to: t) == .seconds(-3))
        #expect((t + .seconds(1)) - t == .seconds(1))
        #expect(MonotonicInstant(nanoseconds: 12_000_345_678).description == "12.000345")
        #expect(t < t + .nanoseconds(1))
    }

    @Test("clocks read sensible values")
    func clocksRead() {
        let a = MonotonicInstant.now()
        let b = MonotonicInstant.now()
        #expect(a <= b)
        #expect(WallClock.now() > 1_600_000_000 * 1_000_000_000)  // after 2020
        #expect(BootClock.now() >= a.nanoseconds)
        #expect(BootClock.suspendedTotal() >= .zero)
    }
}
