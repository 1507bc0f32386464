// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A way to wake the config watcher thread from another thread, although it sleeps inside
/// libinotifytools where no descriptor of ours can reach it: a private pipe, watched through
/// `/proc/self/fd` for attribute changes, whose `fchmod` queues an inotify event on the
/// library's own descriptor. No file system is touched.
struct ConfigWatchWake: Sendable {
    /// The watch descriptor of the pipe, for the thread to recognise the wake-up.
    let wd: Int32
    private let readEnd: Int32

    /// Creates the pipe and its watch; nil without /proc or when the watch cannot be added (the
    /// watcher then re-arms only on its own events and, while the directory is missing, once a
    /// second).
    static func open(session: inout InotifyToolsSession) -> ConfigWatchWake? {
        var ends: [Int32] = [-1, -1]
        // Made before any plugin is spawned, so setting close-on-exec afterwards is safe.
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        // Only the inode matters; the write end is never used.
        close(ends[1])
        guard let wd = session.addAttributeWatch(path: "/proc/self/fd/\(ends[0])") else {
            close(ends[0])
            return nil
        }
        return ConfigWatchWake(wd: wd, readEnd: ends[0])
    }

    private init(wd: Int32, readEnd: Int32) {
        self.wd = wd
        self.readEnd = readEnd
    }

    /// Queues the wake-up event (a chmod to the mode the pipe already has).
    func poke() {
        _ = fchmod(readEnd, 0o600)
    }
}
