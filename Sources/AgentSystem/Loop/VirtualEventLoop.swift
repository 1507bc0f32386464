// SPDX-License-Identifier: Apache-2.0

/// An event loop in virtual time, in the style of swift-nio's `EmbeddedEventLoop`: nothing waits
/// and nothing is read from the kernel. Time moves only when `advance` is called; timers fire by
/// the same ``TimerQueue`` rule as ``EventLoop``'s (coalescing included); descriptor readiness
/// is injected with `makeReady`. Each wakeup for due timers counts as one iteration, so a test
/// can count how often an idle agent would wake.
public final class VirtualEventLoop: EventLooping {
    private struct Watch {
        let fd: Int32
        let events: IOEvents
        let handler: (IOEvents) -> Void
    }

    public private(set) var clock: ClockReading
    /// How many times the loop woke for timers (`EventLoop.iterations` in virtual time).
    public private(set) var iterations: UInt64 = 0
    private var timers = TimerQueue()
    private var watches: [UInt64: Watch] = [:]
    private var deferred: [() -> Void] = []
    private var nextID: UInt64 = 1

    /// Starts at `clock` (by default 1,000 s after boot, at 2026-11-30 08:00:00 UTC).
    public init(clock: ClockReading = VirtualEventLoop.startClock) {
        self.clock = clock
    }

    public static let startClock = ClockReading(
        monotonic: MonotonicInstant(nanoseconds: 1_000_000_000_000), boottime: 1_000_000_000_000,
        realtime: 1_796_025_600_000_000_000)

    public func refreshClock() {}

    @discardableResult
    public func schedule(at deadline: MonotonicInstant, leeway: TimerLeeway,
                         _ action: @escaping () -> Void) -> TimerToken {
        let id = nextID
        nextID += 1
        timers.add(id, deadline: deadline.nanoseconds, leeway: leeway, action)
        return TimerToken(id: id)
    }

    public func cancel(_ token: TimerToken) { timers.remove(token.id) }

    public func isScheduled(_ token: TimerToken) -> Bool { timers.contains(token.id) }

    /// Timers waiting to fire.
    public var timerCount: Int { timers.count }

    /// When the loop would next wake for a timer; nil when it would sleep without one.
    public var nextWakeup: MonotonicInstant? { timers.nextWakeup.map(MonotonicInstant.init(nanoseconds:)) }

    public func execute(_ action: @escaping () -> Void) { deferred.append(action) }

    public func watch(fd: Int32, events: IOEvents, urgent: Bool = false, everySlice: Bool = false,
                      _ handler: @escaping (IOEvents) -> Void) throws -> WatchToken {
        let id = nextID
        nextID += 1
        watches[id] = Watch(fd: fd, events: events, handler: handler)
        return WatchToken(id: id, fd: fd)
    }

    public func unwatch(_ token: WatchToken) { watches[token.id] = nil }

    /// Descriptors watched now.
    public var watchedDescriptors: [Int32] { watches.values.map(\.fd).sorted() }

    /// `fd` became ready for `events`: its handlers run, then the deferred work. Returns whether
    /// anything watched it.
    @discardableResult
    public func makeReady(fd: Int32, _ events: IOEvents) -> Bool {
        let ready = watches.filter { $0.value.fd == fd }.sorted { $0.key < $1.key }
        for (id, watch) in ready where watches[id] != nil { watch.handler(events) }
        runDeferred()
        return !ready.isEmpty
    }

    /// Moves virtual time forward by `span`, waking at every timer's wakeup point on the way
    /// (each one iteration: the due timers, then the deferred work), and ends at `now + span`.
    public func advance(by span: Duration) {
        let target = now + span
        while let wake = timers.nextWakeup, wake <= target.nanoseconds {
            move(to: MonotonicInstant(nanoseconds: max(wake, now.nanoseconds)))
            iterations += 1
            let bound = nextID
            // One at a time, outside any access to the queue: an action may schedule or cancel.
            var fired = false
            while let action = timers.popDue(at: now.nanoseconds, scheduledBefore: bound) {
                fired = true
                action()
            }
            while fired, let action = timers.popDueSlack(at: now.nanoseconds, scheduledBefore: bound) {
                action()
            }
            runDeferred()
        }
        move(to: target)
        runDeferred()
    }

    /// Runs what `execute` deferred (as the real loop does before it sleeps).
    public func runDeferred() {
        while !deferred.isEmpty {
            let batch = deferred
            deferred = []
            for action in batch { action() }
        }
    }

    /// The machine sleeps for `span`: CLOCK_BOOTTIME and the wall clock move, CLOCK_MONOTONIC
    /// does not, and no timer fires meanwhile (the kernel's view of a suspend).
    public func suspend(for span: Duration) {
        let nanoseconds = MonotonicInstant.clampedNanoseconds(of: span)
        clock = ClockReading(monotonic: clock.monotonic, boottime: clock.boottime + UInt64(max(0, nanoseconds)),
                             realtime: clock.realtime + Int64(nanoseconds))
    }

    /// The wall clock is stepped by `offset` (NTP, `date -s`); monotonic time does not move.
    public func stepWallClock(by offset: Duration) {
        clock.realtime += Int64(MonotonicInstant.clampedNanoseconds(of: offset))
    }

    private func move(to instant: MonotonicInstant) {
        guard instant > clock.monotonic else { return }
        let delta = instant.nanoseconds - clock.monotonic.nanoseconds
        clock = ClockReading(monotonic: instant, boottime: clock.boottime + delta,
                             realtime: clock.realtime + Int64(delta))
    }
}
