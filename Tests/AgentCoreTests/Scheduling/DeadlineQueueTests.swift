// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

@Suite struct SchedulingDeadlineQueueTests {
    @Test func popsInPriorityOrderWithUpdatesAndRemovals() {
        var queue = DeadlineQueue<Int, Int>()
        var reference: [Int: Int] = [:]
        var random = SplitMix64(seed: 7)
        for step in 0..<5_000 {
            let key = Int(random.next() % 300)
            switch random.next() % 4 {
            case 0, 1:
                let priority = Int(random.next() % 10_000) * 1000 + key  // unique ties
                queue.set(key, priority)
                reference[key] = priority
            case 2:
                #expect(queue.remove(key) == reference.removeValue(forKey: key))
            default:
                let expected = reference.min { $0.value < $1.value }
                let popped = queue.popMin()
                #expect(popped?.key == expected?.key, "step \(step)")
                if let key = expected?.key { reference[key] = nil }
            }
            #expect(queue.count == reference.count)
            #expect(queue.min?.priority == reference.values.min())
        }
    }

    @Test func timedKeysBreakTiesByIdentifier() {
        var queue = DeadlineQueue<Identifier, TimedKey>()
        for name in ["c", "a", "b"] {
            queue.set(id(name), TimedKey(time: morning, identifier: id(name)))
        }
        queue.set(id("z"), TimedKey(time: morning - .seconds(1), identifier: id("z")))
        var order: [String] = []
        while let top = queue.popMin() { order.append(top.key.rawValue) }
        #expect(order == ["z", "a", "b", "c"])
    }
}
