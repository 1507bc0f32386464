// SPDX-License-Identifier: Apache-2.0
import Glibc

/// SIGTERM and SIGINT are blocked from the start (before libcurl starts a resolver thread, which
/// inherits the mask) and polled with sigpending(2) from libcurl's progress callback, which runs at
/// least once a second even when no data arrives: no handler, no async-signal-safety questions.
enum TerminationSignal {
    static func block() {
        // Ignored signals are never pending: undo a SIG_IGN inherited from whoever started us.
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        var set = signals()
        sigprocmask(SIG_BLOCK, &set, nil)
    }

    static var isPending: Bool {
        var pending = sigset_t()
        sigemptyset(&pending)
        guard sigpending(&pending) == 0 else { return false }
        return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1
    }

    private static func signals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }
}

/// Monotonic time since the plugin started, for the progress throttle.
struct MonotonicClock {
    private let start = MonotonicClock.now()

    var elapsed: Duration { Self.now() - start }

    private static func now() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }
}
