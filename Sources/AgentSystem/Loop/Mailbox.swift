// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// The thread-safe half of a mailbox: a lock-protected FIFO (``ThreadLock``, which TSan sees) plus
/// the eventfd that wakes the loop.
final class MailboxQueue<Message: Sendable>: Sendable {
    private struct State {
        var messages: [Message] = []
        /// Messages before this index were taken (a slice at a time) and are dropped once the
        /// rest is taken or they are half the array: a slice costs its own size, not the queue's.
        var head = 0
        /// The eventfd was written and the loop has not yet taken the queue.
        var wakePending = false
        var closed = false
    }

    private let state = ThreadLock(State())
    /// Owned here and closed in `deinit`, so it stays valid for as long as any poster can reach it.
    let eventFD: Int32

    init(eventFD: Int32) {
        self.eventFD = eventFD
    }

    deinit {
        Glibc.close(eventFD)
    }

    /// Appends messages; writes the eventfd only when no wakeup is pending yet, so a burst of posts
    /// before the loop runs costs one wakeup. Returns false when the mailbox is closed.
    func post(_ messages: [Message]) -> Bool {
        guard !messages.isEmpty else {
            return state.withLock { !$0.closed }
        }
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed else { return (false, false) }
            state.messages.append(contentsOf: messages)
            if state.wakePending { return (true, false) }
            state.wakePending = true
            return (true, true)
        }
        if wake { _ = cshim_eventfd_signal(eventFD) }
        return accepted
    }

    func post(_ message: Message) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed else { return (false, false) }
            state.messages.append(message)
            if state.wakePending { return (true, false) }
            state.wakePending = true
            return (true, true)
        }
        if wake { _ = cshim_eventfd_signal(eventFD) }
        return accepted
    }

    /// Takes what is queued, the oldest `limit` at most. Called on the loop thread after draining
    /// the eventfd: a post that races with this either lands in this batch or writes the eventfd
    /// again; when messages are left, the eventfd is written again so the loop comes back for them.
    func take(limit: Int) -> [Message] {
        let (batch, more) = state.withLock { state -> ([Message], Bool) in
            let waiting = state.messages.count - state.head
            if waiting <= limit {
                state.wakePending = false
                var batch: [Message] = []
                if state.head == 0 {
                    swap(&batch, &state.messages)
                } else {
                    batch = Array(state.messages[state.head...])
                    state.messages.removeAll()
                }
                state.head = 0
                return (batch, false)
            }
            let batch = Array(state.messages[state.head..<state.head + limit])
            state.head += limit
            if state.head * 2 >= state.messages.count {
                state.messages.removeFirst(state.head)
                state.head = 0
            }
            return (batch, true)  // wakePending stays: this wakeup is the pending one
        }
        if more { _ = cshim_eventfd_signal(eventFD) }
        return batch
    }

    func close() {
        state.withLock { state in
            state.closed = true
            state.messages.removeAll()
            state.head = 0
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }
}

/// A Sendable handle that can only post into a `Mailbox`: give it to helper threads.
public struct MailboxSender<Message: Sendable>: Sendable {
    let queue: MailboxQueue<Message>

    /// Queues one message; false when the mailbox was closed (the message is dropped).
    @discardableResult
    public func post(_ message: Message) -> Bool {
        queue.post(message)
    }

    /// Queues messages in order, waking the loop at most once; false when the mailbox was closed.
    @discardableResult
    public func post(contentsOf messages: some Sequence<Message>) -> Bool {
        queue.post(Array(messages))
    }
}

/// Carries messages from any thread to the event loop: a lock-protected FIFO plus an eventfd
/// watched by the loop.
///
/// `post` may be called from any thread. The handler runs on the loop thread with the messages
/// queued since its last run, in posting order (per posting thread), at most `maxBatch` a call (the
/// rest in the next iterations, so a burst of thousands — 10,000 job files dropped at once — is
/// handled in slices that a control request or a deadline can come between); a burst of posts
/// before the loop wakes costs one eventfd write and one wakeup. This is the only way into the loop
/// from another thread: the libinotifytools watcher thread, for instance, posts its event batches
/// here. (The cgroup worker is the other way round: the loop takes from it, see RunCgroupWorker.)
///
/// Create and `close()` it on the loop thread. The registration lives until `close()` or until the
/// loop is destroyed; dropping every reference to the mailbox does not end it.
public final class Mailbox<Message: Sendable>: Sendable {
    private let queue: MailboxQueue<Message>
    private let token: WatchToken
    // Only touched on the loop thread (init and close); weak so that a mailbox released on another
    // thread never runs the loop's deinit there.
    nonisolated(unsafe) private weak var loop: EventLoop?

    /// Creates the eventfd and registers it on `loop`. `handler` receives non-empty FIFO batches of
    /// at most `maxBatch` messages.
    public init(loop: EventLoop, maxBatch: Int = .max, handler: @escaping ([Message]) -> Void) throws {
        let fd = cshim_eventfd()
        guard fd >= 0 else { throw SystemError(call: "eventfd", errno: errno) }
        let queue = MailboxQueue<Message>(eventFD: fd)  // owns fd from here on
        self.queue = queue
        self.loop = loop
        token = try loop.watch(fd: fd, events: .readable) { _ in
            _ = cshim_eventfd_drain(queue.eventFD)
            let batch = queue.take(limit: max(1, maxBatch))
            if !batch.isEmpty { handler(batch) }
        }
    }

    /// A Sendable handle for posting only.
    public var sender: MailboxSender<Message> { MailboxSender(queue: queue) }

    /// Queues one message (any thread); false when the mailbox was closed.
    @discardableResult
    public func post(_ message: Message) -> Bool {
        queue.post(message)
    }

    /// Queues messages in order, waking the loop at most once (any thread); false when closed.
    @discardableResult
    public func post(contentsOf messages: some Sequence<Message>) -> Bool {
        queue.post(Array(messages))
    }

    /// Stops delivery (loop thread only): unregisters the eventfd and drops queued messages; later
    /// posts return false. The eventfd is closed when the last sender is gone.
    public func close() {
        queue.close()
        loop?.unwatch(token)
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { queue.isClosed }

    /// Takes what is queued now, without waiting for the loop (loop thread only): for a stop,
    /// when the loop no longer runs but a helper thread's last outcomes must still be taken in.
    public func takeNow() -> [Message] {
        queue.take(limit: .max)
    }
}
