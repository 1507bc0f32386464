// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §6: a uevent is a hint to re-read sysfs; bursts are debounced without delaying a real change.
@Suite struct HintCoalescerTests {
    enum Kind: Hashable, Sendable { case power, thermal }
    typealias Coalescer = HintCoalescer<Kind>

    func ms(_ n: Int) -> Duration { .milliseconds(n) }

    @Test func aHintAfterAQuietSpellIsReadAtOnce() {
        var coalescer = Coalescer()
        let read = coalescer.hint(.power, now: ms(1000))
        #expect(read?.kinds == [.power])
        #expect(read?.windowEndsAt == ms(1010))
    }

    @Test func aRealChangeRightAfterAnotherIsReadAtOnceToo() {
        var coalescer = Coalescer()
        _ = coalescer.hint(.power, now: ms(0))
        coalescer.readFinished(changed: true)          // plugged in
        let unplug = coalescer.hint(.power, now: ms(3))  // inside the window
        #expect(unplug?.kinds == [.power])
    }

    @Test func hintsThatChangeNothingWaitForTheWindowAndAreReadOnce() {
        var coalescer = Coalescer()
        _ = coalescer.hint(.power, now: ms(0))
        coalescer.readFinished(changed: false)
        #expect(coalescer.hint(.power, now: ms(2)) == nil)
        #expect(coalescer.hint(.thermal, now: ms(4)) == nil)
        #expect(coalescer.hint(.power, now: ms(6)) == nil)
        #expect(coalescer.isHolding)
        let read = coalescer.windowClosed(now: ms(10))
        #expect(read?.kinds == [.power, .thermal])
        #expect(read?.windowEndsAt == ms(30))  // the next window is twice as long
    }

    @Test func aWindowThatClosesWithNothingWaitingEndsTheBurst() {
        var coalescer = Coalescer()
        _ = coalescer.hint(.power, now: ms(0))
        coalescer.readFinished(changed: false)
        #expect(coalescer.windowClosed(now: ms(10)) == nil)
        // The next hint opens a burst of its own: read at once, with the first window again.
        #expect(coalescer.hint(.power, now: ms(50))?.windowEndsAt == ms(60))
    }

    @Test func aFloodOfTenThousandHintsInASecondCostsAboutTenReads() {
        var coalescer = Coalescer()
        var reads = 0
        var windowEnd: Duration?
        for index in 0..<10_000 {
            let now = Duration.microseconds(index * 100)
            if let end = windowEnd, end <= now {
                windowEnd = nil
                if let read = coalescer.windowClosed(now: end) {
                    reads += 1
                    coalescer.readFinished(changed: false)
                    windowEnd = read.windowEndsAt
                }
            }
            if let read = coalescer.hint(.power, now: now) {
                reads += 1
                coalescer.readFinished(changed: false)
                windowEnd = read.windowEndsAt
            }
        }
        #expect(reads >= 5 && reads <= 16, "\(reads) reads")
    }

    @Test func windowsGrowNoLongerThanTheLongest() {
        var coalescer = Coalescer()
        var end = coalescer.hint(.power, now: .zero)?.windowEndsAt ?? .zero
        var lengths: [Duration] = []
        for _ in 0..<6 {
            coalescer.readFinished(changed: false)
            _ = coalescer.hint(.power, now: end - ms(1))
            guard let read = coalescer.windowClosed(now: end) else { break }
            lengths.append(read.windowEndsAt - end)
            end = read.windowEndsAt
        }
        #expect(lengths == [ms(20), ms(40), ms(80), ms(100), ms(100), ms(100)])
    }
}
