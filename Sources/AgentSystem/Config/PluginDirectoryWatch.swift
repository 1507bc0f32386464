// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// Watches the directories of plugins that refused job files name ("is not executable; run
/// chmod +x …", "does not exist; install the plugin"), so that following the advice takes effect
/// without SIGHUP: any change there (create, rename in, write, chmod, chown) calls the handler,
/// which re-checks the refused files.
///
/// An inotify descriptor of its own, read on the loop (libinotifytools is the config watcher's,
/// on its thread, and watches only the config directory). A plugin whose directory does not exist
/// yet is watched through its nearest existing ancestor. The handler runs at most once per loop
/// iteration, however many events arrived.
public final class PluginDirectoryWatch {
    private let loop: EventLoop
    private var fd: Int32
    private var token: WatchToken?
    /// Watch descriptors by directory.
    private var watched: [String: Int32] = [:]

    public init(loop: EventLoop, handler: @escaping () -> Void) throws {
        let fd = cshim_inotify_init()
        guard fd >= 0 else { throw SystemError(call: "inotify_init1", errno: errno) }
        self.loop = loop
        self.fd = fd
        do {
            token = try loop.watch(fd: fd, events: .readable) { [weak self] _ in
                guard let self, self.drain() else { return }
                handler()
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit { close() }

    /// The directories watched now, sorted (for tests and `status`).
    public var directories: [String] { watched.keys.sorted() }

    /// Watches exactly the directories that hold `plugins` (absolute paths): new ones are added,
    /// ones no plugin needs any more are dropped. A directory that cannot be watched is skipped:
    /// SIGHUP still re-checks everything.
    public func watch(plugins: Set<String>) {
        guard fd >= 0 else { return }
        let wanted = Set(plugins.compactMap(Self.watchableDirectory(for:)))
        for (directory, descriptor) in watched where !wanted.contains(directory) {
            inotify_rm_watch(fd, descriptor)
            watched[directory] = nil
        }
        for directory in wanted where watched[directory] == nil {
            let descriptor = cshim_inotify_watch_directory(fd, directory)
            if descriptor >= 0 { watched[directory] = descriptor }
        }
    }

    public func close() {
        if let token {
            loop.unwatch(token)
            self.token = nil
        }
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
        watched.removeAll()
    }

    /// Reads every pending event; whether there was any. A watch the kernel dropped (its
    /// directory removed) is forgotten by the next `watch(plugins:)`, which re-adds what exists.
    private func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var any = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { any = true; continue }
            if n < 0, errno == EINTR { continue }
            break
        }
        if any { watched = watched.filter { Self.isDirectory($0.key) } }
        return any
    }

    /// The plugin's directory, or its nearest existing ancestor; nil for a relative path.
    static func watchableDirectory(for plugin: String) -> String? {
        guard plugin.hasPrefix("/") else { return nil }
        var directory = parent(of: plugin)
        while directory != "/", !isDirectory(directory) { directory = parent(of: directory) }
        return directory
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
