// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Synchronization
import Testing
@testable import AgentSystem

/// A POSIX thread running a Sendable closure: the tests' stand-in for helper threads (Foundation's
/// `Thread` is not available, and a Swift Task would share the small cooperative pool that the
/// tests' own event loops block).
final class TestThread: @unchecked Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    // Written once in init before the thread is shared; read only by join().
    private var handle = pthread_t()
    private let joined = Atomic<Bool>(false)

    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let rc = pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Waits for the thread to finish (idempotent).
    func join() {
        guard !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_join(handle, nil)
    }

    deinit { join() }
}

/// Runs `loop` until a handler calls `stop()`, or until `limit` has passed; returns false on
/// timeout. The limit is generous: it only bounds a broken test, it never paces a passing one.
@discardableResult
func runLoop(_ loop: EventLoop, limit: Duration = .seconds(30)) -> Bool {
    var timedOut = false
    let watchdog = loop.schedule(at: MonotonicInstant.now() + limit) {
        timedOut = true
        loop.stop()
    }
    loop.run()
    loop.cancel(watchdog)
    return !timedOut
}

/// A non-blocking pipe, closed on deinit.
final class TestPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var fds: [Int32] = [-1, -1]
        guard cshim_pipe_cloexec_nonblock(&fds) == 0 else { throw SystemError(call: "pipe2", errno: errno) }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(writeEnd, &bytes, bytes.count)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Glibc.read(readEnd, &buffer, buffer.count) > 0 {}
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}

private let socketCounter = Atomic<Int>(0)

/// A fresh socket path under /tmp, unique within this process and between runs.
func uniqueSocketPath(_ tag: String) -> String {
    let n = socketCounter.wrappingAdd(1, ordering: .relaxed).newValue
    let path = "/tmp/agentd-test-\(getpid())-\(n)-\(tag).sock"
    unlink(path)
    return path
}
