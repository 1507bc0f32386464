// SPDX-License-Identifier: Apache-2.0
/// A queued continued submission and its place in the agent-wide FIFO.
struct QueuedSubmission: Sendable, Hashable {
    /// Increasing in submission order across all jobs.
    var sequence: UInt64
    var submission: Submission
}

/// The queued submissions of one continued job: at most ``limit``, started oldest first
/// (DESIGN §4: "queue of 16").
struct SubmissionQueue: Sendable {
    static let limit = 16

    private var items: [QueuedSubmission] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }
    var isFull: Bool { count >= Self.limit }
    var first: QueuedSubmission? { head < items.count ? items[head] : nil }
    var all: ArraySlice<QueuedSubmission> { items[head...] }

    mutating func append(_ item: QueuedSubmission) {
        items.append(item)
    }

    mutating func popFirst() -> QueuedSubmission? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }

    /// Removes the submissions `predicate` selects; returns them.
    mutating func removeAll(where predicate: (QueuedSubmission) -> Bool) -> [QueuedSubmission] {
        let kept = items[head...].filter { !predicate($0) }
        let removed = items[head...].filter(predicate)
        items = Array(kept)
        head = 0
        return removed
    }
}
