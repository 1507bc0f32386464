// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Sleeps in the kernel until a file is written (inotify IN_MODIFY) or a deadline passes: the
/// event a log-file reader waits for, instead of polling the file.
final class FileGrowthWaiter {
    private let descriptor: Int32

    init?(path: String) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, path, UInt32(IN_MODIFY | IN_CLOSE_WRITE)) >= 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Waits until the file was written since the last call, at most `seconds`; returns whether it was.
    @discardableResult
    func wait(seconds: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(seconds, 3600)) * 1000)
        guard poll(&entry, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) > 0 {}
        return true
    }
}
