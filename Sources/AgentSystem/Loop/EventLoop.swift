// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// Identifies one file-descriptor registration on an `EventLoop`.
///
/// Tokens are never reused, so an event that was already collected for a registration that has
/// since been removed (or replaced by a new registration of the same fd number) is never delivered.
public struct WatchToken: Hashable, Sendable {
    let id: UInt64
    /// The watched file descriptor.
    public let fd: Int32
}

/// Identifies one scheduled timer on an `EventLoop`.
public struct TimerToken: Hashable, Sendable {
    let id: UInt64
}

/// A single-threaded event loop: one epoll instance, one timerfd for every timer, and a clock read
/// once per iteration.
///
/// The loop and everything registered on it belong to one thread: create it, register on it and run
/// it there (it is deliberately not `Sendable`). Other threads talk to it only through a `Mailbox`.
/// When there is nothing to do the loop is blocked in `epoll_wait` with no timeout: timers are
/// delivered by the timerfd, which is armed for the earliest deadline and re-armed only when that
/// deadline changes.
///
/// Handlers run on the loop thread, one at a time, and may call any method of the loop (watch,
/// unwatch, schedule, cancel, stop) except `run`/`runOnce`. Handlers are retained until their
/// registration ends: capture owners `weak`ly (or unwatch/cancel) to avoid reference cycles.
public final class EventLoop: EventLooping {
    private final class Watch {
        let fd: Int32
        var events: IOEvents
        let urgent: Bool
        /// Served at every look between slices, even when already served in the iteration.
        let everySlice: Bool
        let handler: (IOEvents) -> Void
        /// The iteration whose events last reached the handler (urgent watches only): an
        /// urgent watch is asked again between slices only if it was not served yet, unless
        /// `everySlice`.
        var servedIn: UInt64 = 0

        init(fd: Int32, events: IOEvents, urgent: Bool, everySlice: Bool, handler: @escaping (IOEvents) -> Void) {
            self.fd = fd
            self.events = events
            self.urgent = urgent
            self.everySlice = everySlice
            self.handler = handler
        }
    }

    /// epoll user data of the timerfd; watch ids start at 1.
    private static let timerData: UInt64 = 0
    private static let batchSize = 64
    /// Between two ready handlers the loop looks at the timers and the urgent watches: a deadline
    /// (a SIGKILL after the grace period) or a person at `agentctl` waits behind at most one
    /// handler of a burst (a run end that starts the next run takes about a millisecond), not a
    /// whole batch. A look is one clock read, and — at most every ``urgentLookInterval`` — one
    /// `epoll_wait` of the urgent watches' own epoll instance with no timeout. Between handlers
    /// only urgent watches not yet served in the iteration run, unless registered `everySlice`: a
    /// client that pipelines thousands of launches gets one turn an iteration (served at every
    /// look, it would take the turns of the run ends, and with more runs alive every spawn gets
    /// dearer), while a new connection (the listening socket is `everySlice`: one served at an
    /// iteration's start must not make the next wait for the iteration's end) or a client's
    /// first request is answered at the next look.
    /// The urgent watches are looked at between two handlers only when this long has passed
    /// since the last look (a clock read decides; the look itself is a system call): a burst of
    /// tiny handlers, a plugin's pipe read after read, pays one call per 100 µs, not per handler,
    /// and a request waits for at most one handler and this.
    static let urgentLookInterval: Duration = .microseconds(100)
    private static let urgentLookNanoseconds = MonotonicInstant.clampedNanoseconds(of: urgentLookInterval)
    /// CLOCK_MONOTONIC ns of the last look at the urgent watches.
    private var lastUrgentLook: Int64 = 0

    private let epollFD: Int32
    /// The urgent watches again, for the looks between slices (an fd may be in two epolls).
    private let urgentEpollFD: Int32
    private let timerFD: Int32
    private var watches: [UInt64: Watch] = [:]
    /// The live registration of each watched fd number.
    private var watchByFD: [Int32: UInt64] = [:]
    /// Every timer, with its leeway (``TimerQueue``).
    private var timers = TimerQueue()
    /// Ready non-urgent events of the current iteration (kept to reuse its storage).
    private var later: [Int] = []
    /// Absolute CLOCK_MONOTONIC nanoseconds the timerfd is armed for; 0 when disarmed.
    private var armedDeadline: UInt64 = 0
    /// Shared by watches and timers; monotonically increasing, never reused.
    private var nextID: UInt64 = 1
    private var deferred: [() -> Void] = []
    private var stopRequested = false
    private var dispatching = false
    private var readyEvents = [UInt32](repeating: 0, count: EventLoop.batchSize)
    private var readyData = [UInt64](repeating: 0, count: EventLoop.batchSize)
    private var urgentEvents = [UInt32](repeating: 0, count: 16)
    private var urgentData = [UInt64](repeating: 0, count: 16)

    /// CLOCK_MONOTONIC, CLOCK_BOOTTIME and CLOCK_REALTIME as read once per iteration, right after
    /// `epoll_wait` returned (before that: when the loop was created), and again only when a timer
    /// came due in the middle of a long batch of handlers. Every callback sees the values of its
    /// slice, so one answer never mixes several "now"s.
    public private(set) var clock: ClockReading

    /// CLOCK_MONOTONIC of this iteration (`clock.monotonic`).
    public var now: MonotonicInstant { clock.monotonic }

    /// How many times `epoll_wait` has returned: the number of wakeups.
    public private(set) var iterations: UInt64 = 0

    /// Creates the epoll instance and the timerfd.
    public init() throws {
        let epoll = cshim_epoll_create()
        guard epoll >= 0 else { throw SystemError(call: "epoll_create1", errno: errno) }
        let urgentEpoll = cshim_epoll_create()
        guard urgentEpoll >= 0 else {
            let saved = errno
            Glibc.close(epoll)
            throw SystemError(call: "epoll_create1", errno: saved)
        }
        let timer = cshim_timerfd_create()
        guard timer >= 0 else {
            let saved = errno
            Glibc.close(urgentEpoll)
            Glibc.close(epoll)
            throw SystemError(call: "timerfd_create", errno: saved)
        }
        guard cshim_epoll_add(epoll, timer, CSHIM_EPOLLIN, EventLoop.timerData) == 0 else {
            let saved = errno
            Glibc.close(timer)
            Glibc.close(urgentEpoll)
            Glibc.close(epoll)
            throw SystemError(call: "epoll_ctl(ADD timerfd)", errno: saved)
        }
        epollFD = epoll
        urgentEpollFD = urgentEpoll
        timerFD = timer
        clock = ClockReading.read()
    }

    deinit {
        Glibc.close(timerFD)
        Glibc.close(urgentEpollFD)
        Glibc.close(epollFD)
    }

    // MARK: - File descriptors

    /// Starts watching `fd` for `events` (level-triggered). The handler receives the events that
    /// are ready, which may include `.hangup` and `.error` even when not requested.
    ///
    /// The loop does not own `fd`: call `unwatch` before closing it. Watching an fd that already
    /// has a live registration fails with EEXIST; use `change` instead.
    ///
    /// `urgent` handlers run first in an iteration, before due timers and other handlers, and
    /// between slices of the iteration's other handlers when they became ready meanwhile and were
    /// not served yet in the iteration — or, `everySlice`, even when they were (for a handler
    /// whose every call is bounded and cheap, such as accepting connections): a person waiting at
    /// `agentctl` should not wait behind a burst of run ends.
    public func watch(fd: Int32, events: IOEvents, urgent: Bool = false, everySlice: Bool = false,
                      _ handler: @escaping (IOEvents) -> Void) throws -> WatchToken {
        let id = nextID
        nextID += 1
        guard cshim_epoll_add(epollFD, fd, events.epollMask, id) == 0 else {
            throw SystemError(call: "epoll_ctl(ADD)", errno: errno)
        }
        if let stale = watchByFD[fd] {
            // The kernel accepted the fd, so the old registration died with a close() that was not
            // preceded by unwatch: forget it (in the urgent epoll too, where it can linger only
            // if the old file is still open through a dup).
            if watches[stale]?.urgent == true { _ = cshim_epoll_del(urgentEpollFD, fd) }
            watches[stale] = nil
        }
        if urgent {
            guard cshim_epoll_add(urgentEpollFD, fd, events.epollMask, id) == 0 else {
                let saved = errno
                _ = cshim_epoll_del(epollFD, fd)
                throw SystemError(call: "epoll_ctl(ADD urgent)", errno: saved)
            }
        }
        watches[id] = Watch(fd: fd, events: events, urgent: urgent, everySlice: everySlice, handler: handler)
        watchByFD[fd] = id
        return WatchToken(id: id, fd: fd)
    }

    /// Changes the events a registration waits for.
    public func change(_ token: WatchToken, events: IOEvents) throws {
        guard let watch = watches[token.id] else {
            throw SystemError(call: "epoll_ctl(MOD)", errno: ENOENT)
        }
        guard watch.events != events else { return }
        guard cshim_epoll_mod(epollFD, token.fd, events.epollMask, token.id) == 0 else {
            throw SystemError(call: "epoll_ctl(MOD)", errno: errno)
        }
        if watch.urgent, cshim_epoll_mod(urgentEpollFD, token.fd, events.epollMask, token.id) != 0 {
            throw SystemError(call: "epoll_ctl(MOD urgent)", errno: errno)
        }
        watch.events = events
    }

    /// The events a registration currently waits for, or nil when it is no longer registered.
    public func events(of token: WatchToken) -> IOEvents? {
        watches[token.id]?.events
    }

    /// Ends a registration. Safe from inside any handler, including the registration's own and
    /// for a registration whose readiness is already collected in the current batch: its handler
    /// is not called again. Unknown or already removed tokens are ignored.
    public func unwatch(_ token: WatchToken) {
        guard let watch = watches.removeValue(forKey: token.id) else { return }
        guard watchByFD[token.fd] == token.id else { return }
        watchByFD[token.fd] = nil
        // Fails harmlessly (EBADF/ENOENT) when the fd was already closed.
        _ = cshim_epoll_del(epollFD, token.fd)
        if watch.urgent { _ = cshim_epoll_del(urgentEpollFD, token.fd) }
    }

    /// Number of live fd registrations.
    public var watchCount: Int { watches.count }

    // MARK: - Timers

    /// Runs `action` on the loop thread once `now >= deadline`, and — with a `leeway` — at the
    /// latest `leeway` after it, together with other timers (``TimerLeeway``). Timers fire in
    /// wakeup order (ties in scheduling order). A timer scheduled from a timer callback for a
    /// deadline already past fires in the next iteration, so timers cannot starve file
    /// descriptors.
    @discardableResult
    public func schedule(at deadline: MonotonicInstant, leeway: TimerLeeway,
                         _ action: @escaping () -> Void) -> TimerToken {
        let id = nextID
        nextID += 1
        timers.add(id, deadline: deadline.nanoseconds, leeway: leeway, action)
        return TimerToken(id: id)
    }

    /// Cancels a timer; a timer that already fired or was cancelled is ignored.
    public func cancel(_ token: TimerToken) {
        timers.remove(token.id)
    }

    /// Whether a timer is still waiting to fire.
    public func isScheduled(_ token: TimerToken) -> Bool {
        timers.contains(token.id)
    }

    /// Number of timers waiting to fire.
    public var timerCount: Int { timers.count }

    /// The CLOCK_MONOTONIC nanoseconds the timerfd is currently armed for (0: disarmed). For tests
    /// and benchmarks of the re-arming rule.
    public var armedTimerDeadline: UInt64 { armedDeadline }

    // MARK: - Deferred work

    /// Runs `action` on the loop thread after the current callback returns and before the loop
    /// next sleeps (at the end of this iteration, or of the next one when called from outside a
    /// callback). Use it to avoid re-entering a caller.
    public func execute(_ action: @escaping () -> Void) {
        deferred.append(action)
    }

    /// Reads the clocks again in the middle of an iteration. Only for a handler that learned the
    /// wall clock was just stepped (`ClockStepWatch`): the handlers after it must see the new time,
    /// not the reading taken before the step.
    public func refreshClock() {
        clock = ClockReading.read()
    }

    // MARK: - Running

    /// Runs iterations until `stop()` is called; returns after the iteration that called it.
    public func run() {
        while !stopRequested {
            runOnce()
        }
        stopRequested = false
    }

    /// Makes `run()` return after the current iteration. Call it on the loop thread (from another
    /// thread, post to a `Mailbox` whose handler calls it).
    public func stop() {
        stopRequested = true
    }

    /// Whether `stop()` was called and `run()` has not yet returned because of it.
    public var isStopping: Bool { stopRequested }

    /// One iteration: waits until something is ready (at most `timeout`, if given), reads the clock,
    /// then runs the urgent ready handlers, the due timers (deadlines such as SIGKILL after a grace
    /// period must not wait behind a batch of I/O), the other ready handlers — looking at the
    /// timers again between two of them — and the deferred actions, in that order.
    public func runOnce(timeout: Duration? = nil) {
        precondition(!dispatching, "EventLoop.runOnce/run called from inside a loop callback")
        rearmTimer()
        var timeoutMS: Int32 = -1
        if !deferred.isEmpty {
            timeoutMS = 0
        } else if let timeout {
            let ns = MonotonicInstant.clampedNanoseconds(of: timeout)
            let ms = ns <= 0 ? 0 : (ns + 999_999) / 1_000_000
            timeoutMS = Int32(clamping: ms)
        }
        let count = cshim_epoll_wait(epollFD, &readyEvents, &readyData, Int32(EventLoop.batchSize), timeoutMS)
        guard count >= 0 else {
            // Only EBADF/EFAULT/EINVAL remain (EINTR is retried): a broken loop, not an input error.
            fatalError("epoll_wait: \(SystemError.text(errno))")
        }
        iterations &+= 1
        clock = ClockReading.read()
        lastUrgentLook = Int64(clock.monotonic.nanoseconds)  // the urgent watches are served now
        dispatching = true
        defer { dispatching = false }

        later.removeAll(keepingCapacity: true)
        for index in 0..<Int(count) {
            let data = readyData[index]
            if data == EventLoop.timerData {
                _ = cshim_timerfd_drain(timerFD)
                armedDeadline = 0  // expired: the kernel disarmed it
                continue
            }
            guard let watch = watches[data] else { continue }  // removed earlier in this batch
            if watch.urgent {
                watch.servedIn = iterations
                watch.handler(IOEvents(epollMask: readyEvents[index]))
            } else {
                later.append(index)
            }
        }
        // Between handlers only timers that existed before this iteration fire: one a handler
        // just scheduled (a pipelining client's next turn, zero delay) waits for the next
        // iteration, so it cannot take the turns of the run ends.
        let existingBefore = nextID
        fireDueTimers()
        for (position, index) in later.enumerated() {
            if position > 0 {
                var instant = MonotonicInstant.now()
                if Int64(instant.nanoseconds) - lastUrgentLook >= Self.urgentLookNanoseconds {
                    lastUrgentLook = Int64(instant.nanoseconds)
                    // An urgent handler served here may have taken a while: read the time again.
                    if serveUrgentMeanwhile() { instant = MonotonicInstant.now() }
                }
                fireTimersDueMeanwhile(scheduledBefore: existingBefore, at: instant)
            }
            guard let watch = watches[readyData[index]] else { continue }  // removed meanwhile
            watch.handler(IOEvents(epollMask: readyEvents[index]))
        }
        runDeferred()
    }

    /// Between slices of a long batch of handlers: the urgent watches that became ready since the
    /// iteration began and were not served in it yet (a new `agentctl` connection, a request on
    /// one accepted in this iteration).
    /// Returns whether a handler ran.
    private func serveUrgentMeanwhile() -> Bool {
        let count = cshim_epoll_wait(urgentEpollFD, &urgentEvents, &urgentData, Int32(urgentEvents.count), 0)
        guard count > 0 else { return false }
        var served = false
        for index in 0..<Int(count) {
            guard let watch = watches[urgentData[index]], watch.everySlice || watch.servedIn != iterations else { continue }
            watch.servedIn = iterations
            watch.handler(IOEvents(epollMask: urgentEvents[index]))
            served = true
        }
        return served
    }

    /// Between slices of a long batch of handlers: when a timer has come due since the iteration
    /// began, the clock is read again (what follows sees the later time) and due timers fire.
    private func fireTimersDueMeanwhile(scheduledBefore bound: UInt64, at instant: MonotonicInstant) {
        guard timers.hasDue(at: instant.nanoseconds, scheduledBefore: bound) else { return }
        clock = ClockReading.read()
        fireDueTimers(scheduledBefore: bound)
    }

    private func fireDueTimers(scheduledBefore bound: UInt64? = nil) {
        let firstLater = bound ?? nextID  // timers scheduled from here on wait for the next iteration
        // One at a time, outside any access to the queue: an action may schedule or cancel.
        var fired = false
        while let action = timers.popDue(at: now.nanoseconds, scheduledBefore: firstLater) {
            fired = true
            action()
        }
        while fired, let action = timers.popDueSlack(at: now.nanoseconds, scheduledBefore: firstLater) {
            action()
        }
    }

    private func runDeferred() {
        guard !deferred.isEmpty else { return }
        var batch: [() -> Void] = []
        swap(&batch, &deferred)
        for action in batch { action() }
    }

    /// Points the timerfd at the earliest deadline, touching it only when that deadline changed.
    private func rearmTimer() {
        let wanted = timers.nextWakeup ?? 0
        guard wanted != armedDeadline else { return }
        guard cshim_timerfd_set_absolute(timerFD, wanted) == 0 else {
            fatalError("timerfd_settime: \(SystemError.text(errno))")
        }
        armedDeadline = wanted
    }
}
