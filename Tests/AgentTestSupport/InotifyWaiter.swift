// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Sleeps in the kernel until a file is written, or an entry of a directory appears (inotify), or
/// a deadline passes: the event a test waits for, instead of polling.
public final class InotifyWaiter {
    private let descriptor: Int32

    /// `events`: the inotify mask on `path`.
    public init?(path: String, events: UInt32) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, path, events) >= 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Waits until an event came since the last call, at most `seconds`; returns whether one did.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(seconds, 3600)) * 1000)
        guard poll(&entry, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) > 0 {}
        return true
    }

    /// A file written (IN_MODIFY, IN_CLOSE_WRITE): what a log-file reader waits for.
    public static func fileGrowth(_ path: String) -> InotifyWaiter? {
        InotifyWaiter(path: path, events: UInt32(IN_MODIFY | IN_CLOSE_WRITE))
    }

    /// An entry of a directory created or removed (cgroupfs reports both).
    public static func entriesComingAndGoing(_ path: String) -> InotifyWaiter? {
        InotifyWaiter(path: path, events: UInt32(IN_CREATE | IN_DELETE))
    }

    /// An entry of a directory created, renamed into place or written.
    public static func directoryChanges(_ path: String) -> InotifyWaiter? {
        InotifyWaiter(path: path, events: UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE))
    }

    /// Whether `condition` held within `seconds`, looked at again after every event.
    public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        while !condition() {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = seconds - (Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9)
            guard left > 0 else { return condition() }
            wait(seconds: left)
        }
        return true
    }
}
