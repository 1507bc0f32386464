// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The timers of one loop, real or virtual: what is due, in what order, and when the loop must
/// wake. Shared by ``EventLoop`` and ``VirtualEventLoop`` so that virtual time tests the same
/// firing rule the daemon runs.
///
/// A timer without leeway wakes the loop at its deadline. A timer with leeway wakes it at its
/// ``TimerLeeway/wakeup(for:)`` point, and fires earlier — from its deadline on — whenever the
/// loop wakes for another timer: timers with slack are coalesced as sd-event coalesces them.
struct TimerQueue {
    /// Timers by (wakeup, id): ids grow monotonically, so equal wakeups fire in the order they
    /// were scheduled.
    private var queue = DeadlineQueue<UInt64, TimerKey>()
    private var actions: [UInt64: () -> Void] = [:]
    /// The deadline of each timer with leeway (its earliest firing point).
    private var slack: [UInt64: UInt64] = [:]

    var count: Int { queue.count }

    /// The CLOCK_MONOTONIC ns the loop must next wake at, or nil with no timer.
    var nextWakeup: UInt64? { queue.min?.priority.deadline }

    func contains(_ id: UInt64) -> Bool { queue.contains(id) }

    mutating func add(_ id: UInt64, deadline: UInt64, leeway: TimerLeeway, _ action: @escaping () -> Void) {
        // The real loop's timerfd treats 0 as "disarm".
        let deadline = max(deadline, 1)
        queue.set(id, TimerKey(deadline: leeway.wakeup(for: deadline), id: id))
        if leeway.duration > .zero { slack[id] = deadline }
        actions[id] = action
    }

    mutating func remove(_ id: UInt64) {
        _ = queue.remove(id)
        actions[id] = nil
        slack[id] = nil
    }

    /// Whether a timer scheduled before `bound` must fire at `now`.
    func hasDue(at now: UInt64, scheduledBefore bound: UInt64) -> Bool {
        guard let first = queue.min else { return false }
        return first.key < bound && first.priority.deadline <= now
    }

    /// The next timer due at `now` that was scheduled before `bound`, in wakeup order, taken
    /// out of the queue. The caller runs it outside any access to the queue (an action may
    /// schedule or cancel timers).
    mutating func popDue(at now: UInt64, scheduledBefore bound: UInt64) -> (() -> Void)? {
        guard let first = queue.min, first.priority.deadline <= now, first.key < bound else { return nil }
        return take(first.key)
    }

    /// Once the loop woke for a timer: the next timer with leeway whose deadline has passed, in
    /// id order — it fires now rather than wake the loop again later.
    mutating func popDueSlack(at now: UInt64, scheduledBefore bound: UInt64) -> (() -> Void)? {
        guard let id = slack.filter({ $0.key < bound && $0.value <= now }).keys.min() else { return nil }
        return take(id)
    }

    private mutating func take(_ id: UInt64) -> (() -> Void)? {
        _ = queue.remove(id)
        slack[id] = nil
        return actions.removeValue(forKey: id)
    }
}

/// A timer's place in a loop's queue: when it wakes the loop (CLOCK_MONOTONIC ns), then its id.
struct TimerKey: Comparable, Sendable {
    let deadline: UInt64
    let id: UInt64

    static func < (a: TimerKey, b: TimerKey) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.id < b.id
    }
}
