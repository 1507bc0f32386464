// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
@testable import AgentSystem

/// Signal tests send *thread-directed* signals (tgkill) to the test's own thread, which is also
/// the loop thread, instead of `kill(getpid(), SIGHUP)`.
///
/// Why: a process-directed signal goes to any thread that has it unblocked, and a Swift test
/// process always has one — libdispatch parks the main thread in `sigsuspend` with an *empty*
/// mask (dispatch_main's signal thread), and its worker threads (where tests run) block nearly
/// everything. `kill(getpid(), SIGHUP)` would run SIGHUP's default action on the main thread and
/// kill the test process, however carefully the test threads block it. A thread-directed signal
/// stays pending on the one thread it was sent to; with that thread blocking it, the signalfd read
/// by that same thread receives it — the same kernel path as in agentd, where the loop thread is
/// the main thread and every thread blocks TERM/INT/HUP. The suite is serialized so no two tests
/// share a signal number at once.
@Suite("SignalSource", .serialized)
struct SignalSourceTests {
    @Test("SIGHUP arrives through the signalfd on the loop")
    func hangupThroughSignalfd() throws {
        let loop = try EventLoop()
        var received: [Int32] = []
        let source = try SignalSource(loop: loop, signals: [SIGHUP]) { signal in
            received.append(signal)
            loop.stop()
        }
        #expect(SignalSource.isBlockedInCurrentThread(SIGHUP))
        #expect(cshim_thread_kill(cshim_gettid(), SIGHUP) == 0)
        #expect(runLoop(loop))
        #expect(received == [SIGHUP])
        source.close()
        #expect(loop.watchCount == 0)
    }

    @Test("standard signals sent before the loop wakes coalesce per signal number")
    func signalsCoalesce() throws {
        let loop = try EventLoop()
        var received: [Int32] = []
        let source = try SignalSource(loop: loop, signals: [SIGUSR1, SIGUSR2]) { signal in
            received.append(signal)
        }
        let me = cshim_gettid()
        for _ in 0..<3 { _ = cshim_thread_kill(me, SIGUSR1) }
        _ = cshim_thread_kill(me, SIGUSR2)
        loop.runOnce(timeout: .seconds(10))
        #expect(received.sorted() == [SIGUSR1, SIGUSR2].sorted())
        loop.runOnce(timeout: .milliseconds(20))
        #expect(received.count == 2)
        withExtendedLifetime(source) {}
    }

    @Test("a handler may close its own source")
    func closeFromHandler() throws {
        let loop = try EventLoop()
        var count = 0
        var source: SignalSource?
        source = try SignalSource(loop: loop, signals: [SIGUSR1]) { _ in
            count += 1
            source?.close()
            loop.stop()
        }
        _ = cshim_thread_kill(cshim_gettid(), SIGUSR1)
        #expect(runLoop(loop))
        #expect(count == 1)
        #expect(loop.watchCount == 0)
        source = nil
    }

    @Test("blockInCurrentThread blocks; unblock restores")
    func blockingHelpers() throws {
        // SIGWINCH is harmless if it ever got through (default action: ignore).
        let wasBlocked = SignalSource.isBlockedInCurrentThread(SIGWINCH)
        try SignalSource.blockInCurrentThread([SIGWINCH])
        #expect(SignalSource.isBlockedInCurrentThread(SIGWINCH))
        if !wasBlocked {
            try SignalSource.unblockInCurrentThread([SIGWINCH])
            #expect(!SignalSource.isBlockedInCurrentThread(SIGWINCH))
        }
    }
}
