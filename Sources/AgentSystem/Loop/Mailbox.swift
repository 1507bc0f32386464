// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Synchronization

/// The thread-safe half of a mailbox: a Mutex-protected FIFO plus the eventfd that wakes the loop.
final class MailboxQueue<Message: Sendable>: Sendable {
    private struct State {
        var messages: [Message] = []
        /// The eventfd was written and the loop has not yet taken the queue.
        var wakePending = false
        var closed = false
    }

    private let state = Mutex(State())
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

    /// Takes everything queued. Called on the loop thread after draining the eventfd: a post that
    /// races with this either lands in this batch or writes the eventfd again.
    func takeAll() -> [Message] {
        state.withLock { state in
            state.wakePending = false
            var batch: [Message] = []
            swap(&batch, &state.messages)
            return batch
        }
    }

    func close() {
        state.withLock { state in
            state.closed = true
            state.messages.removeAll()
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

/// Carries messages from any thread to the event loop: a Mutex-protected FIFO plus an eventfd
/// watched by the loop.
///
/// `post` may be called from any thread. The handler runs on the loop thread with every message
/// queued since its last run, in posting order (per posting thread); a burst of posts before the
/// loop wakes costs one eventfd write and one wakeup. This is the only cross-thread piece of the
/// loop: the libinotifytools watcher thread, for instance, posts its event batches here.
///
/// Create and `close()` it on the loop thread. The registration lives until `close()` or until the
/// loop is destroyed; dropping every reference to the mailbox does not end it.
public final class Mailbox<Message: Sendable>: Sendable {
    private let queue: MailboxQueue<Message>
    private let token: WatchToken
    // Only touched on the loop thread (init and close); weak so that a mailbox released on another
    // thread never runs the loop's deinit there.
    nonisolated(unsafe) private weak var loop: EventLoop?

    /// Creates the eventfd and registers it on `loop`. `handler` receives non-empty FIFO batches.
    public init(loop: EventLoop, handler: @escaping ([Message]) -> Void) throws {
        let fd = cshim_eventfd()
        guard fd >= 0 else { throw SystemError(call: "eventfd", errno: errno) }
        let queue = MailboxQueue<Message>(eventFD: fd)  // owns fd from here on
        self.queue = queue
        self.loop = loop
        token = try loop.watch(fd: fd, events: .readable) { _ in
            _ = cshim_eventfd_drain(queue.eventFD)
            let batch = queue.takeAll()
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
}
