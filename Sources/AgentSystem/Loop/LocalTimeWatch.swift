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
    private let loop: EventLoop
    private let name: String
    private var fd: Int32
    private var token: WatchToken?

    /// Watches the directory of `path` on `loop`; `handler` runs on the loop thread after events
    /// naming the file (one call per batch).
    public init(loop: EventLoop, path: String = "/etc/localtime", handler: @escaping () -> Void) throws {
        let (directory, name) = Self.split(path)
        let fd = cshim_inotify_init()
        guard fd >= 0 else { throw EventLoopError(call: "inotify_init1", errno: errno) }
        guard cshim_inotify_watch_directory(fd, directory) >= 0 else {
            let saved = errno
            Glibc.close(fd)
            throw EventLoopError(call: "inotify_add_watch(\(directory))", errno: saved)
        }
        self.path = path
        self.loop = loop
        self.name = name
        self.fd = fd
        do {
            token = try loop.watch(fd: fd, events: .readable) { [weak self] _ in
                self?.changed(handler)
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit {
        close()
    }

    /// Stops watching and closes the inotify descriptor.
    public func close() {
        if let token {
            loop.unwatch(token)
            self.token = nil
        }
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    private func changed(_ handler: () -> Void) {
        switch cshim_inotify_drain_for_name(fd, name) {
        case 0: return
        case 1: handler()
        default: fatalError("inotify read: \(EventLoopError.describe(errno: errno))")
        }
    }

    /// `/etc/localtime` → (`/etc`, `localtime`); a bare name is in the current directory.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
