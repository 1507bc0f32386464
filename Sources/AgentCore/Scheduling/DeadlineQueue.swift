// SPDX-License-Identifier: Apache-2.0
/// An indexed binary min-heap: at most one entry per key, each with a priority that can be
/// raised, lowered or removed in O(log n). The scheduler keeps its jobs in these so that a tick
/// looks only at the jobs whose time has come, never at all of them.
///
/// Ties are the caller's business: priorities embed a tie-breaker (the identifier, a sequence
/// number), so the order is total and deterministic.
public struct DeadlineQueue<Key: Hashable & Sendable, Priority: Comparable & Sendable>: Sendable {
    private var keys: [Key] = []
    private var priorities: [Priority] = []
    private var positions: [Key: Int] = [:]

    public init() {}

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// The entry with the smallest priority.
    public var min: (key: Key, priority: Priority)? {
        guard let key = keys.first, let priority = priorities.first else { return nil }
        return (key, priority)
    }

    public func contains(_ key: Key) -> Bool { positions[key] != nil }

    public func priority(of key: Key) -> Priority? {
        positions[key].map { priorities[$0] }
    }

    /// Inserts `key` or moves it to `priority`.
    public mutating func set(_ key: Key, _ priority: Priority) {
        if let index = positions[key] {
            let old = priorities[index]
            priorities[index] = priority
            if priority < old { siftUp(index) } else { siftDown(index) }
        } else {
            keys.append(key)
            priorities.append(priority)
            positions[key] = keys.count - 1
            siftUp(keys.count - 1)
        }
    }

    /// Removes `key`; returns its priority if it was there.
    @discardableResult
    public mutating func remove(_ key: Key) -> Priority? {
        guard let index = positions[key] else { return nil }
        let removed = priorities[index]
        let last = keys.count - 1
        if index != last { swapAt(index, last) }
        keys.removeLast()
        priorities.removeLast()
        positions[key] = nil
        if index < keys.count {
            siftDown(index)
            siftUp(index)
        }
        return removed
    }

    /// Removes and returns the smallest entry.
    public mutating func popMin() -> (key: Key, priority: Priority)? {
        guard let top = min else { return nil }
        remove(top.key)
        return top
    }

    /// Removes every entry whose key `matches`, in one pass and one rebuild: O(n), where one
    /// `remove` each costs O(log n) dictionary updates (10,000 of them took 22 ms).
    public mutating func removeAll(where matches: (Key) -> Bool) -> [(key: Key, priority: Priority)] {
        var removed: [(key: Key, priority: Priority)] = []
        var keptKeys: [Key] = []
        var keptPriorities: [Priority] = []
        keptKeys.reserveCapacity(keys.count)
        keptPriorities.reserveCapacity(keys.count)
        for (key, priority) in zip(keys, priorities) {
            if matches(key) {
                removed.append((key, priority))
            } else {
                keptKeys.append(key)
                keptPriorities.append(priority)
            }
        }
        guard !removed.isEmpty else { return [] }
        keys = keptKeys
        priorities = keptPriorities
        rebuild()
        return removed
    }

    /// Removes the entries `isTaken` holds for and returns them smallest first, as repeated
    /// `popMin` while it holds would. `isTaken` must hold for a prefix of the order (a priority
    /// at most some bound): it is asked only down the heap's paths where it held. The heap is walked only where it holds such entries; a few
    /// are popped one by one, a crowd (a start with every job due) in one rebuild, where one
    /// `popMin` each cost 10,000 index updates per level.
    public mutating func popAll(while isTaken: (Priority) -> Bool) -> [(key: Key, priority: Priority)] {
        // Most calls take nothing: no allocation then.
        guard let first = priorities.first, isTaken(first) else { return [] }
        var found: [Int] = []
        var stack: [Int] = [0]
        while let index = stack.popLast() {
            guard isTaken(priorities[index]) else { continue }
            found.append(index)
            for child in [2 * index + 1, 2 * index + 2] where child < keys.count { stack.append(child) }
        }
        guard Self.rebuildPays(taking: found.count, of: keys.count) else {
            var popped: [(key: Key, priority: Priority)] = []
            popped.reserveCapacity(found.count)
            while let top = min, isTaken(top.priority) {
                popped.append(top)
                remove(top.key)
            }
            return popped
        }
        var taken = [Bool](repeating: false, count: keys.count)
        for index in found { taken[index] = true }
        var popped = found.map { (key: keys[$0], priority: priorities[$0]) }
        popped.sort { $0.priority < $1.priority }
        var keptKeys: [Key] = [], keptPriorities: [Priority] = []
        keptKeys.reserveCapacity(keys.count - found.count)
        keptPriorities.reserveCapacity(keys.count - found.count)
        for index in keys.indices where !taken[index] {
            keptKeys.append(keys[index])
            keptPriorities.append(priorities[index])
        }
        keys = keptKeys
        priorities = keptPriorities
        rebuild()
        return popped
    }

    /// Whether taking `k` of `n` entries costs less as one rebuild (about n index writes) than
    /// as k pops (about two index writes per level of the heap each).
    static func rebuildPays(taking k: Int, of n: Int) -> Bool {
        k > 64 && k * 16 > n
    }

    /// Inserts (or moves) every entry: a crowd in one rebuild, O(n + k), a few one by one.
    public mutating func setAll(_ entries: [(key: Key, priority: Priority)]) {
        guard Self.rebuildPays(taking: entries.count, of: keys.count + entries.count) else {
            for (key, priority) in entries { set(key, priority) }
            return
        }
        for (key, priority) in entries {
            if let index = positions[key] {
                priorities[index] = priority
            } else {
                positions[key] = keys.count
                keys.append(key)
                priorities.append(priority)
            }
        }
        rebuild()
    }

    /// Floyd's heap construction on the arrays alone, then the index written once.
    private mutating func rebuild() {
        if keys.count > 1 {
            for start in stride(from: keys.count / 2 - 1, through: 0, by: -1) { siftDown(start, indexing: false) }
        }
        positions.removeAll(keepingCapacity: true)
        for (index, key) in keys.enumerated() { positions[key] = index }
    }

    /// The `k` smallest entries, smallest first, without disturbing the heap: O(k log k).
    public func smallest(_ k: Int) -> [(key: Key, priority: Priority)] {
        var result: [(key: Key, priority: Priority)] = []
        guard k > 0, !keys.isEmpty else { return result }
        result.reserveCapacity(Swift.min(k, keys.count))
        // A small heap of heap indices: the frontier of the big heap's top.
        var frontier: [Int] = [0]
        func less(_ a: Int, _ b: Int) -> Bool { priorities[frontier[a]] < priorities[frontier[b]] }
        while result.count < k, !frontier.isEmpty {
            let index = frontier[0]
            result.append((keys[index], priorities[index]))
            frontier[0] = frontier[frontier.count - 1]
            frontier.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var least = parent
                if left < frontier.count, less(left, least) { least = left }
                if right < frontier.count, less(right, least) { least = right }
                guard least != parent else { break }
                frontier.swapAt(parent, least)
                parent = least
            }
            for child in [2 * index + 1, 2 * index + 2] where child < keys.count {
                frontier.append(child)
                var node = frontier.count - 1
                while node > 0, less(node, (node - 1) / 2) {
                    frontier.swapAt(node, (node - 1) / 2)
                    node = (node - 1) / 2
                }
            }
        }
        return result
    }

    /// Every entry, in no particular order (for queries, not for decisions).
    public var entries: [(key: Key, priority: Priority)] {
        Array(zip(keys, priorities)).map { (key: $0.0, priority: $0.1) }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        keys.swapAt(i, j)
        priorities.swapAt(i, j)
        positions[keys[i]] = i
        positions[keys[j]] = j
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard priorities[child] < priorities[parent] else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    /// `indexing: false` moves only the arrays (a rebuild writes the index once at its end).
    private mutating func siftDown(_ start: Int, indexing: Bool = true) {
        var parent = start
        let count = keys.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            let right = left + 1
            var smallest = left
            if right < count, priorities[right] < priorities[left] { smallest = right }
            guard priorities[smallest] < priorities[parent] else { return }
            if indexing {
                swapAt(parent, smallest)
            } else {
                keys.swapAt(parent, smallest)
                priorities.swapAt(parent, smallest)
            }
            parent = smallest
        }
    }
}

/// A heap priority for jobs: a time, then the identifier (deterministic ties).
struct TimedKey: Comparable, Sendable {
    var time: SchedulerTime
    var identifier: Identifier

    static func < (lhs: TimedKey, rhs: TimedKey) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        return lhs.identifier < rhs.identifier
    }
}
