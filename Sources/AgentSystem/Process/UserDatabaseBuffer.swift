// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The buffer a reentrant user-database call (getpwnam_r, getgrnam_r, getpwuid_r) fills: it
/// starts at 1 KB, on the stack, and grows only when the call says ERANGE. A fixed 64 KB
/// buffer, zero-filled on the heap, left its pages resident in every idle agent.
enum UserDatabaseBuffer {
    /// Runs `call` with a buffer and its size; `call` returns the C function's result code and,
    /// when it found an entry, the value copied out of it (the buffer does not outlive the call).
    static func lookup<T>(_ call: (UnsafeMutablePointer<CChar>, Int) -> (code: Int32, value: T?)) -> T? {
        var size = 1024
        while size <= 1 << 20 {
            let outcome = withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { buffer -> (code: Int32, value: T?) in
                guard let base = buffer.baseAddress else { return (ENOMEM, nil) }
                return call(base, buffer.count)
            }
            guard outcome.code == ERANGE else { return outcome.code == 0 ? outcome.value : nil }
            size *= 4
        }
        return nil
    }
}
