// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Interruptions a long-running command (`watch`) waits for between its rounds of work, without
/// threads or handlers: the signals are blocked, so they stay pending until `wait` takes them with
/// `sigtimedwait`, which doubles as the sleep between rounds.
///
/// SIGINT (Ctrl-C), SIGTERM and SIGHUP mean stop; SIGWINCH means the terminal was resized;
/// SIGTSTP (Ctrl-Z) asks to be suspended.
public final class SignalWait {
    /// What ended a wait.
    public enum Outcome: Equatable, Sendable {
        /// The time passed.
        case timedOut
        /// The terminal changed size.
        case resized
        /// Ctrl-Z (SIGTSTP): the caller restores the terminal, then stops.
        case suspend
        /// Asked to stop, by this signal.
        case stop(signal: Int32)
    }

    private var set = sigset_t()
    private var previous = sigset_t()
    private var active = false

    /// Blocks SIGINT, SIGTERM, SIGHUP, SIGWINCH and, when `catchSuspend`, SIGTSTP for this thread
    /// until `restore()`.
    public init(catchSuspend: Bool = false) {
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] + (catchSuspend ? [SIGTSTP] : []) { sigaddset(&set, signal) }
        active = pthread_sigmask(SIG_BLOCK, &set, &previous) == 0
    }

    deinit {
        restore()
    }

    /// Waits up to `milliseconds` for one of the signals.
    public func wait(milliseconds: Int) -> Outcome {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 + Int64(milliseconds)
        while true {
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let left = deadline - (Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000)
            guard left > 0 else { return .timedOut }
            var timeout = timespec(tv_sec: Int(left / 1000), tv_nsec: Int(left % 1000) * 1_000_000)
            let signal = sigtimedwait(&set, nil, &timeout)
            if signal == SIGWINCH { return .resized }
            if signal == SIGTSTP { return .suspend }
            if signal > 0 { return .stop(signal: signal) }
            if errno == EAGAIN { return .timedOut }
            // EINTR: another signal's handler ran; wait for the rest of the time.
        }
    }

    /// A stop signal already pending, without waiting (checked after slow work).
    public func pendingStop() -> Int32? {
        var pending = sigset_t()
        guard sigpending(&pending) == 0 else { return nil }
        for signal in [SIGINT, SIGTERM, SIGHUP] where sigismember(&pending, signal) == 1 {
            return signal
        }
        return nil
    }

    /// Unblocks the signals again; any still pending is discarded first so that it cannot kill
    /// the process on the way out.
    public func restore() {
        guard active else { return }
        active = false
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        while sigtimedwait(&set, nil, &zero) > 0 {}
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
}
