/// The event loop's timers: a binary min-heap ordered by (deadline, id) with an index from timer id
/// to heap position, so that insert, cancel and pop-earliest are all O(log n).
///
/// Ids grow monotonically, so timers with equal deadlines fire in the order they were scheduled.
struct TimerHeap {
    struct Entry {
        let deadline: UInt64
        let id: UInt64
        let action: () -> Void

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var entries: [Entry] = []
    private var positions: [UInt64: Int] = [:]

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    /// The earliest entry, if any.
    var first: Entry? { entries.first }

    func contains(_ id: UInt64) -> Bool { positions[id] != nil }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        positions[entry.id] = entries.count - 1
        siftUp(entries.count - 1)
    }

    /// Removes the timer with this id; returns whether it was present.
    @discardableResult
    mutating func remove(id: UInt64) -> Bool {
        guard let index = positions[id] else { return false }
        remove(at: index)
        return true
    }

    /// Removes and returns the earliest entry.
    mutating func popFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        return remove(at: 0)
    }

    @discardableResult
    private mutating func remove(at index: Int) -> Entry {
        let removed = entries[index]
        positions[removed.id] = nil
        let last = entries.count - 1
        if index != last {
            entries.swapAt(index, last)
            entries.removeLast()
            positions[entries[index].id] = index
            if index > 0 && entries[index].precedes(entries[(index - 1) / 2]) {
                siftUp(index)
            } else {
                siftDown(index)
            }
        } else {
            entries.removeLast()
        }
        return removed
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            swap(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            var smallest = left
            if right < count && entries[right].precedes(entries[left]) { smallest = right }
            guard entries[smallest].precedes(entries[parent]) else { break }
            swap(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        positions[entries[a].id] = a
        positions[entries[b].id] = b
    }
}
