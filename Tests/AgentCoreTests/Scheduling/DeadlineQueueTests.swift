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

    @Test func bulkRemovalsAndInsertionsKeepTheHeapInOrder() {
        var queue = DeadlineQueue<Int, Int>()
        var reference: [Int: Int] = [:]
        var random = SplitMix64(seed: 11)
        for round in 0..<200 {
            var batch: [(key: Int, priority: Int)] = []
            // Small batches go in one by one, large ones (over 64) in one rebuild: both paths.
            for _ in 0..<Int(random.next() % (round % 3 == 0 ? 400 : 40)) {
                let key = Int(random.next() % 500)
                let priority = Int(random.next() % 10_000) * 1000 + key
                batch.removeAll { $0.key == key }
                batch.append((key, priority))
            }
            queue.setAll(batch)
            for (key, priority) in batch { reference[key] = priority }
            let modulus = Int(random.next() % 5) + 2
            let removed = queue.removeAll { $0 % modulus == round % modulus }
            let expected = reference.filter { $0.key % modulus == round % modulus }
            #expect(Dictionary(uniqueKeysWithValues: removed.map { ($0.key, $0.priority) }) == expected, "round \(round)")
            for key in expected.keys { reference[key] = nil }
            #expect(queue.count == reference.count)
            for key in reference.keys.prefix(3) { #expect(queue.priority(of: key) == reference[key]) }
            if round % 10 == 9 {
                var popped: [Int] = []
                while let top = queue.popMin() { popped.append(top.priority) }
                #expect(popped == reference.values.sorted(), "round \(round)")
                reference = [:]
            }
        }
    }

    @Test func takingEverythingDueReturnsItInOrderAndKeepsTheRestIndexed() {
        var random = SplitMix64(seed: 29)
        for round in 0..<60 {
            var queue = DeadlineQueue<Int, Int>()
            var reference: [Int: Int] = [:]
            let size = Int(random.next() % 2_000) + 1
            for key in 0..<size {
                let priority = Int(random.next() % 100_000) * 10_000 + key
                queue.set(key, priority)
                reference[key] = priority
            }
            // A bound that takes a few entries (popped one by one) or a crowd (one rebuild).
            let sorted = reference.values.sorted()
            let taking = min(size, round % 2 == 0 ? Int(random.next() % 8) : Int(random.next() % UInt64(size)))
            let bound = taking == 0 ? -1 : sorted[taking - 1]
            let taken = queue.popAll { $0 <= bound }
            #expect(taken.map(\.priority) == Array(sorted.prefix(taking)), "round \(round)")
            #expect(taken.allSatisfy { reference[$0.key] == $0.priority })
            for entry in taken { reference[entry.key] = nil }
            #expect(queue.count == reference.count)
            for (key, priority) in reference { #expect(queue.priority(of: key) == priority) }
            queue.set(-1, -1)
            #expect(queue.popMin()?.key == -1)
            var rest: [Int] = []
            while let top = queue.popMin() { rest.append(top.priority) }
            #expect(rest == Array(sorted.dropFirst(taking)), "round \(round)")
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
