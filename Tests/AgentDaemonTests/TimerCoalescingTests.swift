// SPDX-License-Identifier: Apache-2.0
import Testing
import AgentSystem

/// Timers with slack fire together within their accuracy, as sd-event's do (issue 31 item 8).
@Suite struct TimerCoalescingTests {
    @Test func timersWithSlackSetApartFireInOneWakeup() {
        let loop = VirtualEventLoop()
        var fired: [String] = []
        loop.schedule(after: .milliseconds(1_100), leeway: .quarterSecond) { fired.append("title") }
        loop.advance(by: .milliseconds(30))
        loop.schedule(after: .milliseconds(1_100), leeway: .quarterSecond) { fired.append("checkpoint") }
        loop.advance(by: .milliseconds(40))
        loop.schedule(after: .seconds(1), leeway: .quarterSecond) { fired.append("metrics") }
        loop.advance(by: .seconds(2))
        #expect(fired == ["title", "checkpoint", "metrics"])
        #expect(loop.iterations == 1)
    }

    @Test func timersWithoutSlackWakeTheLoopEachAtItsDeadline() {
        let loop = VirtualEventLoop()
        var fired = 0
        loop.schedule(after: .milliseconds(1_100)) { fired += 1 }
        loop.advance(by: .milliseconds(30))
        loop.schedule(after: .milliseconds(1_100)) { fired += 1 }
        loop.advance(by: .seconds(2))
        #expect(fired == 2)
        #expect(loop.iterations == 2)
    }

    @Test func aTimerWithSlackFiresNeverBeforeItsDeadlineNorAfterItsLeeway() {
        for offset in stride(from: 0, to: 2_000, by: 37) {
            let deadline = UInt64(1_000_000_000_000 + offset * 1_000_000)
            let wake = TimerLeeway.quarterSecond.wakeup(for: deadline)
            #expect(wake >= deadline && wake <= deadline + 250_000_000)
        }
    }

    @Test func aStrictTimerTakesDueSlackTimersAlong() {
        let loop = VirtualEventLoop()
        var fired: [String] = []
        loop.schedule(after: .seconds(5), leeway: .second) { fired.append("retry") }
        loop.schedule(after: .milliseconds(5_100)) { fired.append("deadline") }
        loop.advance(by: .seconds(7))
        #expect(fired == ["deadline", "retry"])
        #expect(loop.iterations == 1)
    }
}
