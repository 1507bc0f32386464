// SPDX-License-Identifier: Apache-2.0

/// What the daemon's components use of an event loop: the clock read once per iteration,
/// timers, descriptor watches and deferred work. ``EventLoop`` is the real one (epoll, one
/// timerfd); ``VirtualEventLoop`` is one whose time a test advances and whose descriptors a
/// test makes ready, so that the shell's ordering rules run in virtual time with no process.
///
/// Everything is called on the loop's thread; handlers run there, one at a time.
public protocol EventLooping: AnyObject {
    /// CLOCK_MONOTONIC, CLOCK_BOOTTIME and CLOCK_REALTIME as read for this iteration.
    var clock: ClockReading { get }
    /// Reads the clocks again in the middle of an iteration (after a clock step).
    func refreshClock()
    /// Runs `action` once `now >= deadline`, at the latest `leeway` after it (``TimerLeeway``).
    func schedule(at deadline: MonotonicInstant, leeway: TimerLeeway, _ action: @escaping () -> Void) -> TimerToken
    /// Cancels a timer; one that fired or was cancelled is ignored.
    func cancel(_ token: TimerToken)
    /// Whether a timer is still waiting to fire.
    func isScheduled(_ token: TimerToken) -> Bool
    /// Runs `action` after the current callback returns and before the loop next sleeps.
    func execute(_ action: @escaping () -> Void)
    /// Watches `fd` for `events` (level-triggered) until `unwatch`.
    func watch(fd: Int32, events: IOEvents, urgent: Bool, everySlice: Bool,
               _ handler: @escaping (IOEvents) -> Void) throws -> WatchToken
    /// Ends a registration; unknown tokens are ignored.
    func unwatch(_ token: WatchToken)
}

extension EventLooping {
    /// CLOCK_MONOTONIC of this iteration (`clock.monotonic`).
    public var now: MonotonicInstant { clock.monotonic }

    /// A timer that fires at `deadline` exactly (no leeway).
    @discardableResult
    public func schedule(at deadline: MonotonicInstant, _ action: @escaping () -> Void) -> TimerToken {
        schedule(at: deadline, leeway: .none, action)
    }

    /// Runs `action` once `delay` has passed since `now` (this iteration's clock reading).
    @discardableResult
    public func schedule(after delay: Duration, leeway: TimerLeeway = .none,
                         _ action: @escaping () -> Void) -> TimerToken {
        schedule(at: now + delay, leeway: leeway, action)
    }

}
