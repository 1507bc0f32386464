// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The inotify event bits the watcher asks for and reads, as the kernel defines them.
enum InotifyMask {
    static let attrib = UInt32(IN_ATTRIB)
    static let closeWrite = UInt32(IN_CLOSE_WRITE)
    static let movedFrom = UInt32(IN_MOVED_FROM)
    static let movedTo = UInt32(IN_MOVED_TO)
    static let create = UInt32(IN_CREATE)
    static let delete = UInt32(IN_DELETE)
    static let deleteSelf = UInt32(IN_DELETE_SELF)
    static let moveSelf = UInt32(IN_MOVE_SELF)
    static let unmount = UInt32(IN_UNMOUNT)
    static let queueOverflow = UInt32(IN_Q_OVERFLOW)
    static let ignored = UInt32(IN_IGNORED)
    static let isDirectory = UInt32(IN_ISDIR)
    static let onlyDirectory = UInt32(IN_ONLYDIR)

    /// Everything a config directory watch needs: entries appearing, changing, going, and the
    /// directory itself going. `IN_MODIFY` is left out on purpose: a file is re-read when its
    /// writer closes it, not at every write(2) of a half-written file.
    static let watched = attrib | closeWrite | movedFrom | movedTo | create | delete
        | deleteSelf | moveSelf | onlyDirectory
}

/// Why adding a watch failed: the errno of `inotify_add_watch`.
struct ConfigWatchAddFailure: Error {
    var errno: Int32
}

/// What the translator needs from the inotify library and the file system. The real host is
/// `InotifyToolsSession`; tests use a table so the mapping rules run without a kernel.
protocol ConfigWatchHost {
    /// Watches a directory (non-recursively) and returns the watch descriptor.
    mutating func addWatch(directoryPath: String) -> Result<Int32, ConfigWatchAddFailure>
    /// Removes a watch the kernel may still hold (a directory renamed away, a symlink removed).
    mutating func removeWatch(_ wd: Int32, directoryPath: String)
    /// Forgets a watch the kernel has already dropped (it sent `IN_IGNORED`).
    mutating func forgetDroppedWatch(_ wd: Int32, directoryPath: String)
    /// Whether an entry that was just created (or one waited for) can be read now: no
    /// `IN_CLOSE_WRITE` under its name follows a symlink, a hard link, a FIFO or a file linked
    /// in from `O_TMPFILE`.
    func createdEntry(path: String) -> CreatedEntry
    /// The device and inode of the directory at `path` (following symbolic links), or nil when
    /// there is no directory there. Comparing it with the watched one shows a replaced directory.
    func directoryIdentity(path: String) -> DirectoryIdentity?
}

/// Which directory a path names right now (`stat`'s device and inode).
struct DirectoryIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}

/// Turns raw inotify events on the three config directories into `ConfigWatchEvent`s and keeps
/// the set of watches in step with the directories that exist.
///
/// It owns the watch-descriptor bookkeeping itself rather than asking libinotifytools which
/// directory a descriptor belongs to, because the library never forgets a watch the kernel
/// dropped on its own (see `InotifyToolsSession`): its name lookups can answer with a dead watch.
struct ConfigWatchTranslator {
    /// The directories that hold config; everything else under the config directory is ignored.
    enum Directory: String, CaseIterable {
        case root = ""
        case manifests = "manifests.d"
        case jobs = "jobs.d"
    }

    /// The config directory without a trailing slash.
    let configDirectory: String
    private var directoryByWD: [Int32: Directory] = [:]
    private var wdByDirectory: [Directory: Int32] = [:]
    /// Subdirectories that appeared in this burst; they are watched when the burst ends (see
    /// `finishBatch`).
    private var pendingRearm: [Directory] = []
    /// The identity of each directory when its watch was added, to notice a replacement whose
    /// events were lost (queue overflow) or never came (a symlink's target swapped).
    private var identityByDirectory: [Directory: DirectoryIdentity] = [:]
    /// Set while the config directory itself is gone (deleted, moved or unmounted). Its parent's
    /// watch sees the name come back; then everything is watched and rescanned again.
    private(set) var rootLost = false
    /// The watch on the config directory's parent, for its name coming and going.
    private var parentWD: Int32?
    /// The config directory's name came back in its parent during this burst.
    private var rootReturned = false
    /// Check every watch against the file system when the burst ends (overflow, SIGHUP).
    private var verifyRequested = false
    /// Files created while their writer still had them open, by path relative to the config
    /// directory, with how many more quiet seconds to wait for the writer before reading them
    /// anyway. A writer that opened the file by name closes it with `IN_CLOSE_WRITE` under
    /// that name; one that linked it in from `O_TMPFILE` closes under a made-up name (`#INODE`),
    /// so any close in the config directories has them looked at again.
    private var awaitingWriters: [String: Int] = [:]
    private var writersCheckRequested = false
    /// How many quiet seconds a file still held open by its writer waits before it is read
    /// anyway, as it was before writers were waited for.
    static let writerPatienceSeconds = 10

    /// Whether some created file waits for its writer to close it; the watcher thread then
    /// wakes once a second to look again.
    var awaitsWriters: Bool { !awaitingWriters.isEmpty }

    init(configDirectory: String) {
        self.configDirectory = configDirectory
    }

    /// The directory holding the config directory, and the config directory's name in it; nil
    /// for `/`, which has no parent to watch.
    var parentAndName: (parent: String, name: String)? {
        guard let slash = configDirectory.lastIndex(of: "/") else { return (".", configDirectory) }
        let name = String(configDirectory[configDirectory.index(after: slash)...])
        guard !name.isEmpty else { return nil }
        let parent = String(configDirectory[..<slash])
        return (parent.isEmpty ? "/" : parent, name)
    }

    /// What `status` shows: how many config directories are watched and which are missing.
    var health: ConfigWatchHealth {
        var missing: [String] = []
        for directory in Directory.allCases where wdByDirectory[directory] == nil {
            missing.append(path(of: directory))
        }
        return ConfigWatchHealth(watchedDirectories: wdByDirectory.count, missing: missing,
                                 parentWatched: parentWD != nil)
    }

    /// Asks for every watch to be checked against the file system at the end of the burst.
    mutating func requestVerification() { verifyRequested = true }

    /// The subdirectory a name in the config directory stands for, if it is one of the two.
    static func subdirectory(named name: String) -> Directory? {
        switch name {
        case Directory.manifests.rawValue: return .manifests
        case Directory.jobs.rawValue: return .jobs
        default: return nil
        }
    }

    func path(of directory: Directory) -> String {
        directory == .root ? configDirectory : configDirectory + "/" + directory.rawValue
    }

    /// Whether a directory is currently watched (for tests and diagnostics).
    func isWatched(_ directory: Directory) -> Bool { wdByDirectory[directory] != nil }

    /// Watches the config directory and whichever of its subdirectories exist. A missing
    /// subdirectory is normal (it is watched when it appears); any other failure is an error,
    /// since the daemon would otherwise silently miss changes.
    mutating func armInitially<Host: ConfigWatchHost>(host: inout Host) throws(ConfigWatcherError) {
        switch host.addWatch(directoryPath: configDirectory) {
        case .success(let wd):
            record(wd, for: .root)
            identityByDirectory[.root] = host.directoryIdentity(path: configDirectory)
        case .failure(let failure):
            throw ConfigWatcherError(
                "cannot watch config directory \(configDirectory): \(SystemError.text(failure.errno))")
        }
        for directory in [Directory.manifests, .jobs] {
            switch host.addWatch(directoryPath: path(of: directory)) {
            case .success(let wd):
                record(wd, for: directory)
                identityByDirectory[directory] = host.directoryIdentity(path: path(of: directory))
            case .failure(let failure) where failure.errno == ENOENT || failure.errno == ENOTDIR:
                continue
            case .failure(let failure):
                throw ConfigWatcherError(
                    "cannot watch \(path(of: directory)): \(SystemError.text(failure.errno))")
            }
        }
        armParent(host: &host)
    }

    /// Watches the parent for the config directory's name. Failing is not fatal (the watches
    /// below still work); `health` says so, and a missing config directory is then looked for
    /// by the watcher thread's periodic check instead.
    private mutating func armParent<Host: ConfigWatchHost>(host: inout Host) {
        guard parentWD == nil, let (parent, _) = parentAndName else { return }
        if case .success(let wd) = host.addWatch(directoryPath: parent) {
            parentWD = wd
        }
    }

    /// Translates one raw event into zero or more watch events.
    mutating func handle<Host: ConfigWatchHost>(
        wd: Int32, mask: UInt32, name: String,
        into batch: inout ConfigWatchBatch, host: inout Host
    ) {
        if mask & InotifyMask.queueOverflow != 0 {
            // Events were lost, perhaps a directory being replaced: check every watch too.
            verifyRequested = true
            batch.add(.overflow)
            return
        }
        if wd == parentWD {
            parentEvent(mask: mask, name: name, into: &batch, host: &host)
            return
        }
        // Events still queued for a watch that was removed in the meantime describe a directory
        // that is no longer part of the config (renamed away): drop them.
        guard let directory = directoryByWD[wd] else { return }

        if mask & InotifyMask.ignored != 0 {
            // The kernel dropped the watch: the directory was deleted or its file system
            // unmounted. Whatever the daemon knew under it must be checked again.
            forget(wd, directory: directory)
            host.forgetDroppedWatch(wd, directoryPath: path(of: directory))
            if directory == .root {
                loseRoot(into: &batch, host: &host)
            } else {
                batch.add(.rescan(directory: directory.rawValue))
            }
            return
        }
        if mask & InotifyMask.moveSelf != 0 {
            // A subdirectory that moves is also reported by the config directory's
            // IN_MOVED_FROM, which handles it. The config directory itself moving means the
            // configured path is now empty, while the watches would follow the directory to its
            // new name: stop watching.
            if directory == .root { loseRoot(into: &batch, host: &host) }
            return
        }
        if mask & (InotifyMask.deleteSelf | InotifyMask.unmount) != 0 {
            return  // IN_IGNORED follows and does the work.
        }
        // An event without a name is about the watched directory itself (its own chmod).
        guard !name.isEmpty else { return }
        if mask & InotifyMask.closeWrite != 0, !awaitingWriters.isEmpty { writersCheckRequested = true }

        switch directory {
        case .root:
            if let subdirectory = Self.subdirectory(named: name) {
                subdirectoryEvent(subdirectory, mask: mask, into: &batch, host: &host)
            } else if name == "agentd.conf", mask & InotifyMask.isDirectory == 0 {
                fileEvent(relativePath: name, mask: mask, into: &batch, host: host)
            }
        case .manifests, .jobs:
            // Subdirectories of jobs.d and manifests.d are not config.
            guard mask & InotifyMask.isDirectory == 0 else { return }
            fileEvent(relativePath: directory.rawValue + "/" + name, mask: mask,
                      into: &batch, host: host)
        }
    }

    /// Ends a burst: watches the subdirectories that appeared in it. Deferring this to the end
    /// of the burst lets a directory that was created and removed again within it cost nothing,
    /// and lets the kernel's `IN_IGNORED` for a directory that was replaced by a rename arrive
    /// first. The `rescan` for each was already collected, and the daemon only acts on it after
    /// this returns, so its rescan sees every file that was created before the watch existed.
    mutating func finishBatch<Host: ConfigWatchHost>(
        into batch: inout ConfigWatchBatch, host: inout Host
    ) {
        if writersCheckRequested { checkAwaitedWriters(into: &batch, host: host, aSecondPassed: false) }
        let rearm = pendingRearm
        pendingRearm.removeAll()
        if rootReturned || verifyRequested {
            // Reconciling covers the subdirectories too.
            rootReturned = false
            verifyRequested = false
            reconcile(into: &batch, host: &host)
            return
        }
        guard !rootLost else { return }
        for directory in rearm {
            if let old = wdByDirectory[directory] {
                // Still watching the directory this one replaced (mv newdir jobs.d).
                forget(old, directory: directory)
                host.removeWatch(old, directoryPath: path(of: directory))
            }
            watch(directory, host: &host)
            // A failure means it is already gone again or is not a directory: the rescan that
            // was collected finds nothing there, which is the truth.
        }
    }

    /// Brings the watches in line with what is on disk now: a directory that is there but not
    /// watched, or watched under an identity it no longer has (replaced, swapped behind a
    /// symlink), is watched afresh and rescanned; one that is gone loses its watch. The config
    /// directory coming back re-arms everything below it.
    mutating func reconcile<Host: ConfigWatchHost>(
        into batch: inout ConfigWatchBatch, host: inout Host
    ) {
        armParent(host: &host)
        let rootNow = host.directoryIdentity(path: configDirectory)
        if rootNow == nil || rootNow != identityByDirectory[.root] || wdByDirectory[.root] == nil {
            if wdByDirectory[.root] != nil { unwatchAll(host: &host) }
            guard rootNow != nil else {
                rootLost = true
                return
            }
            rootLost = false
            watch(.root, host: &host)
            guard wdByDirectory[.root] != nil else {
                rootLost = true
                return
            }
            for directory in [Directory.manifests, .jobs] { watch(directory, host: &host) }
            for directory in Directory.allCases { batch.add(.rescan(directory: directory.rawValue)) }
            return
        }
        for directory in [Directory.manifests, .jobs] {
            let now = host.directoryIdentity(path: path(of: directory))
            let watched = wdByDirectory[directory]
            guard now != identityByDirectory[directory] || (now != nil) != (watched != nil) else {
                continue
            }
            if let watched {
                forget(watched, directory: directory)
                host.removeWatch(watched, directoryPath: path(of: directory))
            }
            if now != nil { watch(directory, host: &host) }
            batch.add(.rescan(directory: directory.rawValue))
        }
    }

    /// Adds the watch for one directory and remembers which directory it is.
    private mutating func watch<Host: ConfigWatchHost>(_ directory: Directory, host: inout Host) {
        if case .success(let wd) = host.addWatch(directoryPath: path(of: directory)) {
            record(wd, for: directory)
            identityByDirectory[directory] = host.directoryIdentity(path: path(of: directory))
        }
    }

    /// An event on the parent: only the config directory's own name matters.
    private mutating func parentEvent<Host: ConfigWatchHost>(
        mask: UInt32, name: String, into batch: inout ConfigWatchBatch, host: inout Host
    ) {
        if mask & InotifyMask.ignored != 0 {
            // The parent itself went away; the periodic check looks for it again.
            if let wd = parentWD { host.forgetDroppedWatch(wd, directoryPath: parentAndName?.parent ?? "/") }
            parentWD = nil
            return
        }
        guard let (_, ownName) = parentAndName, name == ownName else { return }
        if mask & (InotifyMask.create | InotifyMask.movedTo) != 0 {
            // Back, or replaced by a rename or a symlink: watch whatever is there now.
            rootReturned = true
        } else if mask & (InotifyMask.delete | InotifyMask.movedFrom) != 0, !rootLost {
            loseRoot(into: &batch, host: &host)
        }
    }

    private mutating func subdirectoryEvent<Host: ConfigWatchHost>(
        _ directory: Directory, mask: UInt32,
        into batch: inout ConfigWatchBatch, host: inout Host
    ) {
        // The ISDIR bit is not checked: a symlink to a directory is a valid jobs.d, and a plain
        // file of that name simply fails to be watched and rescans as empty.
        if mask & (InotifyMask.create | InotifyMask.movedTo) != 0 {
            if !pendingRearm.contains(directory) { pendingRearm.append(directory) }
            batch.add(.rescan(directory: directory.rawValue))
        } else if mask & (InotifyMask.delete | InotifyMask.movedFrom) != 0 {
            pendingRearm.removeAll { $0 == directory }
            if let wd = wdByDirectory[directory] {
                // Renamed away or a symlink removed: the kernel still reports on the directory
                // under its new name, which is no longer config. (A deleted directory's watch
                // is already gone: its IN_IGNORED comes before this event.)
                forget(wd, directory: directory)
                host.removeWatch(wd, directoryPath: path(of: directory))
            }
            batch.add(.rescan(directory: directory.rawValue))
        }
    }

    /// A second passed with no event while files wait for their writers: look at them again,
    /// and read those that waited long enough.
    mutating func checkWritersAfterAQuietSecond<Host: ConfigWatchHost>(
        into batch: inout ConfigWatchBatch, host: Host
    ) {
        checkAwaitedWriters(into: &batch, host: host, aSecondPassed: true)
    }

    /// Reports each awaited file its writer has closed (or that waited out its patience), and
    /// forgets those that are gone or no longer files.
    private mutating func checkAwaitedWriters<Host: ConfigWatchHost>(
        into batch: inout ConfigWatchBatch, host: Host, aSecondPassed: Bool
    ) {
        writersCheckRequested = false
        for (relativePath, patience) in awaitingWriters.sorted(by: { $0.key < $1.key }) {
            switch host.createdEntry(path: configDirectory + "/" + relativePath) {
            case .complete:
                awaitingWriters[relativePath] = nil
                batch.add(.changed(relativePath: relativePath))
            case .nothing:
                awaitingWriters[relativePath] = nil
            case .beingWritten:
                guard aSecondPassed else { continue }
                if patience > 1 {
                    awaitingWriters[relativePath] = patience - 1
                } else {
                    awaitingWriters[relativePath] = nil
                    batch.add(.changed(relativePath: relativePath))
                }
            }
        }
    }

    private mutating func fileEvent<Host: ConfigWatchHost>(
        relativePath: String, mask: UInt32, into batch: inout ConfigWatchBatch, host: Host
    ) {
        // Any later event of the file's own decides for it: closed, renamed, removed, chmod.
        if mask & InotifyMask.create == 0 { awaitingWriters[relativePath] = nil }
        if mask & (InotifyMask.delete | InotifyMask.movedFrom) != 0 {
            batch.add(.removed(relativePath: relativePath))
        } else if mask & (InotifyMask.closeWrite | InotifyMask.movedTo | InotifyMask.attrib) != 0 {
            batch.add(.changed(relativePath: relativePath))
        } else if mask & InotifyMask.create != 0 {
            // A file its writer still holds open is half a file: it is read once closed.
            switch host.createdEntry(path: configDirectory + "/" + relativePath) {
            case .complete:
                awaitingWriters[relativePath] = nil
                batch.add(.changed(relativePath: relativePath))
            case .beingWritten:
                awaitingWriters[relativePath] = Self.writerPatienceSeconds
            case .nothing:
                awaitingWriters[relativePath] = nil
            }
        }
    }

    /// The config directory is gone (deleted, moved away, unmounted): its watches go, and the
    /// rescans tell the daemon to look (it finds the directory missing and keeps what it had
    /// read). The parent's watch, or the watcher thread's periodic check, brings it back.
    private mutating func loseRoot<Host: ConfigWatchHost>(
        into batch: inout ConfigWatchBatch, host: inout Host
    ) {
        unwatchAll(host: &host)
        pendingRearm.removeAll()
        rootLost = true
        for directory in Directory.allCases {
            batch.add(.rescan(directory: directory.rawValue))
        }
    }

    /// Drops every watch below the parent.
    private mutating func unwatchAll<Host: ConfigWatchHost>(host: inout Host) {
        for (wd, directory) in directoryByWD {
            forget(wd, directory: directory)
            host.removeWatch(wd, directoryPath: path(of: directory))
        }
        wdByDirectory.removeAll()
    }

    private mutating func record(_ wd: Int32, for directory: Directory) {
        // inotify hands out the same descriptor for the same inode: with jobs.d a symlink to
        // manifests.d both names share one watch. The first owner keeps it.
        if directoryByWD[wd] == nil { directoryByWD[wd] = directory }
        wdByDirectory[directory] = wd
    }

    private mutating func forget(_ wd: Int32, directory: Directory) {
        if directoryByWD[wd] == directory { directoryByWD[wd] = nil }
        if wdByDirectory[directory] == wd {
            wdByDirectory[directory] = nil
            identityByDirectory[directory] = nil
        }
    }
}
