// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// Notices that the local time zone file (`/etc/localtime`) was replaced or rewritten, on the
/// event loop, with an inotify descriptor of its own.
///
/// `/etc/localtime` is usually a symlink that `timedatectl set-timezone` replaces by a rename, so
/// the file itself cannot be watched (the watch would follow the old inode): its directory is
/// watched for entries of that name being created, moved in or away, written or removed.
/// (libinotifytools is the config watcher's, with its thread; this descriptor is read on the loop.)
/// The watch says only *that* it changed: the caller re-reads the zone (`LocalZone`).
public final class LocalTimeWatch {
    /// The watched file, `/etc/localtime` unless a test says otherwise.
    public let path: String
    private let name: String
    private var descriptor: WatchedDescriptor?

    /// Watches the directory of `path` on `loop`; `handler` runs on the loop thread after events
    /// naming the file (one call per batch).
    public init(loop: EventLoop, path: String = "/etc/localtime", handler: @escaping () -> Void) throws {
        let (directory, name) = Self.split(path)
        let fd = cshim_inotify_init()
        guard fd >= 0 else { throw SystemError(call: "inotify_init1", errno: errno) }
        guard cshim_inotify_watch_directory(fd, directory) >= 0 else {
            let saved = errno
            Glibc.close(fd)
            throw SystemError(call: "inotify_add_watch(\(directory))", errno: saved)
        }
        self.path = path
        self.name = name
        descriptor = try WatchedDescriptor(loop: loop, fd: fd) { [weak self] fd in
            self?.changed(fd, handler)
        }
    }

    /// Stops watching and closes the inotify descriptor.
    public func close() {
        descriptor?.close()
    }

    private func changed(_ fd: Int32, _ handler: () -> Void) {
        switch cshim_inotify_drain_for_name(fd, name) {
        case 0: return
        case 1: handler()
        default: fatalError("inotify read: \(SystemError.text(errno))")
        }
    }

    /// `/etc/localtime` → (`/etc`, `localtime`); a bare name is in the current directory.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
