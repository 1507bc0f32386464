// SPDX-License-Identifier: Apache-2.0
import CInotifyTools
import CShim
import Glibc

/// The one handle on libinotifytools' state, which is process-global: a single inotify
/// descriptor the library keeps to itself, its watch tables, its regex filter and a static
/// event buffer. Nothing in it is thread-safe, so after `ConfigWatcher.start` hands the session
/// to the watcher thread, no other thread may call into the library.
///
/// libinotifytools 3.22 quirks this type works around (each checked against the real library):
/// - Its inotify descriptor is opened without close-on-exec; `open` sets the flag (see there).
/// - It does not act on `IN_IGNORED`: a watch the kernel dropped (its directory was deleted)
///   stays in its tables, and `inotifytools_remove_watch_by_wd` on it fails, because
///   `inotify_rm_watch` fails, leaving it there and printing "Failed to remove watch on …:
///   Unknown error -1" to stderr. The stale entry keeps its file name, so when the directory is
///   created again and watched, the library's name table still maps the name to the dead
///   descriptor and the new watch is missing from it. Dropped watches are therefore renamed out
///   of the way with `inotifytools_replace_filename`, which re-keys the name table properly.
///   What remains is one small entry per dropped watch.
/// - `inotifytools_next_events(timeout, n)` with `n > 1` spins on `FIONREAD` until `n`
///   events' worth of bytes are queued (seconds of busy CPU), so events are read one at a time.
/// - Its timeout is in whole seconds: `-1` blocks, `0` only takes what is already queued.
/// - The regex filter is matched against the watch's path plus the entry name (`%w%f`), not the
///   bare name; see `LeftoverNameFilter.pattern`.
final class InotifyToolsSession: ConfigWatchHost {
    /// One event as the kernel reported it, with the entry name decoded.
    struct RawEvent {
        var wd: Int32
        var mask: UInt32
        var name: String
    }

    enum ReadOutcome {
        case event(RawEvent)
        /// Nothing was queued (only for non-blocking reads).
        case empty
        case failed(errno: Int32)
    }

    private init() {}

    /// Initialises libinotifytools and installs the leftover filter.
    static func open(ignoring leftoverPattern: String) throws(ConfigWatcherError) -> InotifyToolsSession {
        let existing = inotifyDescriptors()
        defer {
            // The library creates its descriptor with plain inotify_init(), without
            // close-on-exec, so every plugin the daemon spawns would inherit it (and could read
            // the daemon's events away). The descriptor is private; find it in /proc/self/fd.
            for fd in inotifyDescriptors().subtracting(existing) {
                _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
            }
        }
        guard inotifytools_initialize() == 1 else {
            let code = inotifytools_error()
            var message = "cannot initialise inotify: \(SystemError.text(code))"
            if code == EMFILE {
                message += " (raise fs.inotify.max_user_instances)"
            }
            throw ConfigWatcherError(message)
        }
        guard inotifytools_ignore_events_by_regex(leftoverPattern, REG_EXTENDED) == 1 else {
            inotifytools_cleanup()
            throw ConfigWatcherError("cannot install the inotify leftover filter \(leftoverPattern)")
        }
        return InotifyToolsSession()
    }

    /// Closes the library's descriptor and frees its tables (only after a failed start: the
    /// running watcher keeps its session for the life of the process).
    func close() {
        inotifytools_cleanup()
    }

    /// Waits for the next event (`blocking`) or takes one that is already queued.
    func next(blocking: Bool) -> ReadOutcome {
        next(timeoutSeconds: blocking ? -1 : 0)
    }

    /// Waits up to `timeoutSeconds` for the next event (`-1`: for ever; `0`: only what is
    /// queued); `.empty` when none came.
    func next(timeoutSeconds: Int) -> ReadOutcome {
        guard let event = inotifytools_next_events(timeoutSeconds, 1) else {
            let code = inotifytools_error()
            return code == 0 ? .empty : .failed(errno: code)
        }
        let header = event.pointee
        var name = ""
        if header.len > 0 {
            // The name follows the fixed header, NUL-padded to `len` bytes.
            let bytes = UnsafeRawPointer(event)
                .advanced(by: MemoryLayout<inotify_event>.size)
                .assumingMemoryBound(to: UInt8.self)
            let capacity = Int(header.len)
            var length = 0
            while length < capacity && bytes[length] != 0 { length += 1 }
            name = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
        return .event(RawEvent(wd: header.wd, mask: header.mask, name: name))
    }

    // MARK: ConfigWatchHost

    func addWatch(directoryPath: String) -> Result<Int32, ConfigWatchAddFailure> {
        guard inotifytools_watch_file(directoryPath, Int32(bitPattern: InotifyMask.watched)) == 1 else {
            return .failure(ConfigWatchAddFailure(errno: inotifytools_error()))
        }
        // The library names directory watches with a trailing slash; it does not return the
        // descriptor, so look it up by that name.
        var wd = inotifytools_wd_from_filename(Self.watchName(directoryPath))
        if wd <= 0 {
            // It decides on the slash with lstat: a symlink to a directory is named as given.
            wd = inotifytools_wd_from_filename(directoryPath)
        }
        guard wd > 0 else { return .failure(ConfigWatchAddFailure(errno: EINVAL)) }
        return .success(wd)
    }

    /// Watches one file that is not a directory for attribute changes only (the wake pipe).
    func addAttributeWatch(path: String) -> Int32? {
        guard inotifytools_watch_file(path, Int32(bitPattern: InotifyMask.attrib)) == 1 else { return nil }
        let wd = inotifytools_wd_from_filename(path)
        return wd > 0 ? wd : nil
    }

    func directoryIdentity(path: String) -> DirectoryIdentity? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return DirectoryIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    func removeWatch(_ wd: Int32, directoryPath: String) {
        if inotifytools_remove_watch_by_wd(wd) == 0 {
            // The kernel had already dropped it (its IN_IGNORED is still queued): the library
            // kept its entry, so move it out of the way like any dropped watch.
            forgetDroppedWatch(wd, directoryPath: directoryPath)
        }
    }

    func forgetDroppedWatch(_ wd: Int32, directoryPath: String) {
        // A name no real path can start with, unique per descriptor, so the name is free for
        // the next watch on this directory and no later rename touches this entry again.
        inotifytools_replace_filename(Self.watchName(directoryPath), "\u{1}dropped-watch-\(wd)")
        // A watch added through a symlink is named without the slash. (The rename is of a
        // prefix, so only when that exact name is this watch's.)
        if inotifytools_wd_from_filename(directoryPath) == wd {
            inotifytools_replace_filename(directoryPath, "\u{1}dropped-watch-link-\(wd)")
        }
    }

    func createdEntry(path: String) -> CreatedEntry {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .nothing }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            switch Self.heldOpenForWriting(path: path) {
            case .some(true): return .beingWritten
            case .some(false): return .complete
            case nil:
                // No lease to ask with (a file system without them): content or a second link
                // means a copy nearly done or link(2); an empty file is still being written.
                return info.st_nlink > 1 || info.st_size > 0 ? .complete : .beingWritten
            }
        case S_IFDIR:
            return .nothing
        default:
            // A symlink, or a FIFO, socket or device made in place (mkfifo): nobody will
            // close-write it, and reading it is refused without blocking, so report it now.
            return .complete
        }
    }

    /// Whether some process has the file open for writing, asked with a read lease (refused
    /// while a writer holds the file); nil when the file system or the file cannot say.
    static func heldOpenForWriting(path: String) -> Bool? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        switch cshim_open_for_writing(fd) {
        case 0: return false
        case 1: return true
        default: return nil
        }
    }

    /// The process's open inotify descriptors, from the `anon_inode:inotify` links in
    /// /proc/self/fd (empty without /proc).
    static func inotifyDescriptors() -> Set<Int32> {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        var found: Set<Int32> = []
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            guard let fd = Int32(name) else { continue }
            let length = target.withUnsafeMutableBufferPointer { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return readlink("/proc/self/fd/" + name, base, buffer.count - 1)
            }
            guard length > 0 else { continue }
            let link = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link == "anon_inode:inotify" { found.insert(fd) }
        }
        return found
    }

    private static func watchName(_ directoryPath: String) -> String {
        directoryPath.hasSuffix("/") ? directoryPath : directoryPath + "/"
    }
}
