// SPDX-License-Identifier: Apache-2.0
/// Config files the watcher reported deleted or renamed away, not yet acted on.
///
/// A deploy that replaces the config directory (`rm -rf /etc/agentd && cp -a new /etc/agentd`)
/// first deletes every file, one by one, and only then the directories. Acting on each deletion
/// at once would unregister every job (and cancel its runs) before the directory is even gone.
/// So removals wait until nothing has changed for `quietPeriod`; by then a deleted directory is
/// known to be missing and its files keep their last config until it is back.
struct PendingConfigRemovals {
    /// Long enough for `rm -rf` to get from the files to their directory, and for `cp -a` to
    /// put them back, on a loaded machine (150 ms was seen to be too short with both cores busy:
    /// a copy paused that long mid-directory and its missing files were removed); short enough
    /// that a deliberate `rm jobs.d/x.job` still takes effect promptly to a person.
    static let quietPeriod: Duration = .seconds(1)
    /// While a directory was replaced (removed and back, renamed over) among the pending
    /// removals, a deploy is under way: its copy may stall for seconds on a busy machine (the
    /// journal commits of other processes' fsyncs hold its file creations: 5 s was seen to be too
    /// short while the test suite ran), and a job removed by mistake there cancels its runs, so
    /// the wait is longer.
    static let swapQuietPeriod: Duration = .seconds(10)

    private var paths: Set<String> = []
    /// A watched directory was replaced since the pending removals began.
    private(set) var directoryReplaced = false

    /// How long nothing must change before the removals take effect.
    var quietPeriod: Duration { directoryReplaced ? Self.swapQuietPeriod : Self.quietPeriod }

    mutating func noteDirectoryReplaced() { directoryReplaced = true }

    var isEmpty: Bool { paths.isEmpty }

    func contains(_ relativePath: String) -> Bool { paths.contains(relativePath) }

    /// The pending paths, in a stable order.
    var all: [String] { paths.sorted() }

    mutating func add(_ relativePath: String) { paths.insert(relativePath) }

    /// Files a scan of the disk no longer found (SIGHUP, a rescan, an inotify overflow). One that
    /// no deletion event reported was replaced unseen — a file system mounted over its
    /// directory, a watch lost, events dropped — so it waits as a replaced directory's files do.
    mutating func addFoundMissing(_ relativePaths: [String]) {
        if relativePaths.contains(where: { !paths.contains($0) }) { directoryReplaced = true }
        paths.formUnion(relativePaths)
    }

    /// The file is there again (or was re-read): nothing to remove.
    mutating func cancel(_ relativePath: String) { paths.remove(relativePath) }

    mutating func removeAll() {
        paths.removeAll()
        directoryReplaced = false
    }

    /// The directories (relative to the config directory, "" for itself) the pending paths are in.
    var directories: Set<String> {
        Set(paths.map { path in path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "" })
    }

    /// The pending paths in a stable order, and none left.
    mutating func takeAll() -> [String] {
        defer { removeAll() }
        return paths.sorted()
    }
}
