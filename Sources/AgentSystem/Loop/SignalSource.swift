// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// Delivers signals to a handler on the event loop through a signalfd, instead of an async
/// signal handler.
///
/// A signal reaches a signalfd only while it is blocked — in *every* thread of the process, or the
/// kernel may deliver a process-directed signal to a thread that has it unblocked and run its default
/// action (SIGTERM would kill the daemon). Threads inherit the mask of the thread that creates them,
/// so the daemon's `main` calls `SignalSource.blockInCurrentThread(SignalSource.daemonSignals)` (and
/// `SignalSource.ignore(SIGPIPE)`) first, before it spawns any helper thread (the inotify watcher, a
/// Swift concurrency pool): every later thread then starts with them blocked. `init` also blocks the
/// signals in the calling thread, which is enough for a single-threaded process.
///
/// Standard signals do not queue: several SIGHUPs sent before the loop wakes arrive as one.
/// Dispositions are left alone (a blocked signal with SIG_DFL stays pending; one set to SIG_IGN may
/// be discarded by the kernel before it is ever pending). Child processes spawned through the shim
/// get an empty mask and default dispositions.
public final class SignalSource {
    /// The signals agentd takes through its loop: SIGTERM and SIGINT (shut down), SIGHUP (reload).
    public static let daemonSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// The signals this source receives.
    public let signals: [Int32]
    private var descriptor: WatchedDescriptor?

    /// Blocks `signals` in the calling thread, opens a signalfd for them and watches it on `loop`.
    /// `handler` runs on the loop thread once per signal received (coalesced per signal number).
    public init(loop: EventLoop, signals: [Int32], handler: @escaping (Int32) -> Void) throws {
        let fd = signals.withUnsafeBufferPointer { cshim_signalfd_for($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw SystemError(call: "signalfd", errno: errno) }
        self.signals = signals
        descriptor = try WatchedDescriptor(loop: loop, fd: fd) { [weak self] fd in
            self?.drain(fd, handler)
        }
    }

    /// Stops watching and closes the signalfd. The signals stay blocked (pending ones stay pending).
    public func close() {
        descriptor?.close()
    }

    private func drain(_ fd: Int32, _ handler: (Int32) -> Void) {
        // Re-check every round: the handler may close this source.
        while descriptor?.isOpen == true {
            let signal = cshim_signalfd_read(fd)
            guard signal > 0 else { return }
            handler(signal)
        }
    }

    /// Blocks `signals` in the calling thread. Call it on the main thread before any other thread
    /// exists (threads inherit the mask), so no thread ever runs their default action.
    public static func blockInCurrentThread(_ signals: [Int32]) throws {
        let rc = signals.withUnsafeBufferPointer { cshim_block_signals($0.baseAddress, Int32($0.count)) }
        // pthread_sigmask returns the error number instead of setting errno.
        guard rc == 0 else { throw SystemError(call: "pthread_sigmask", errno: rc) }
    }

    /// Unblocks `signals` in the calling thread (tests and child-side cleanup).
    public static func unblockInCurrentThread(_ signals: [Int32]) throws {
        let rc = signals.withUnsafeBufferPointer { cshim_unblock_signals($0.baseAddress, Int32($0.count)) }
        guard rc == 0 else { throw SystemError(call: "pthread_sigmask", errno: rc) }
    }

    /// Whether `signal` is blocked in the calling thread.
    public static func isBlockedInCurrentThread(_ signal: Int32) -> Bool {
        cshim_signal_is_blocked(signal) == 1
    }

    /// Sets `signal`'s disposition to SIG_IGN for the whole process. agentd ignores SIGPIPE: a write
    /// to a vanished peer then fails with EPIPE instead of killing the daemon (socket writes also use
    /// MSG_NOSIGNAL).
    public static func ignore(_ signal: Int32) throws {
        guard cshim_signal_disposition(signal, 1) == 0 else {
            throw SystemError(call: "sigaction(SIG_IGN)", errno: errno)
        }
    }
}
