// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A value guarded by a pthread mutex, for state shared between the loop and one of the
/// daemon's helper threads. Unlike `Synchronization.Mutex` (a futex the standard library drives
/// itself) ThreadSanitizer sees this lock, so `make sanitize-thread` checks the code that uses it
/// instead of needing a suppression for it.
final class ThreadLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only touched with `mutex` held (`withLock`): what makes the type Sendable.
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
