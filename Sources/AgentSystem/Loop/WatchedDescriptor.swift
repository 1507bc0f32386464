// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A descriptor this object owns, watched on the event loop until it is closed: the shared part
/// of every source that is one kernel descriptor (signalfd, the clock-step timerfd, the
/// time-zone inotify). It takes the descriptor over even when watching fails (it is closed then),
/// and `close` — or deinit — unwatches before closing, so the loop never polls a closed or reused
/// number.
public final class WatchedDescriptor {
    private let loop: EventLoop
    /// The descriptor while open; -1 once closed (a handler may close its own source).
    public private(set) var fd: Int32
    private var token: WatchToken?

    /// Watches `fd` for `events`; `handler` runs on the loop thread while it is open. `urgent`
    /// runs it before the iteration's due timers (see ``EventLoop/watch(fd:events:urgent:_:)``).
    public init(loop: EventLoop, fd: Int32, events: IOEvents = .readable, urgent: Bool = false,
                handler: @escaping (Int32) -> Void) throws {
        self.loop = loop
        self.fd = fd
        do {
            token = try loop.watch(fd: fd, events: events, urgent: urgent) { [weak self] _ in
                guard let self, self.fd >= 0 else { return }
                handler(self.fd)
            }
        } catch {
            Glibc.close(fd)
            self.fd = -1
            throw error
        }
    }

    deinit {
        close()
    }

    public var isOpen: Bool { fd >= 0 }

    /// Stops watching and closes the descriptor; harmless when already closed.
    public func close() {
        if let token {
            loop.unwatch(token)
            self.token = nil
        }
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }
}
