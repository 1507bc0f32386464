// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem
import Glibc

/// Keeps the loaded configuration in step with the config directory (DESIGN §3): the inotify
/// watcher (through a mailbox onto the loop), removals that wait for a quiet directory, the
/// plugin directories named in errors, and a log line per change. Every batch of changes goes
/// to `onChanges`; everyone else reads the result as a ``JobCatalogue``.
final class ConfigFollower: JobCatalogue {
    private let loop: EventLoop
    private let log: Logger
    private let directory: String
    private var loader: ConfigLoader
    private var watcher: ConfigWatcher?
    private var mailbox: Mailbox<ConfigWatchEvent>?
    /// The directories of plugins named in config errors.
    private var pluginWatch: PluginDirectoryWatch?
    /// Removals reported by the watcher, applied once the config directory is quiet.
    private var pendingRemovals = PendingConfigRemovals()
    private var removalTimer: TimerToken?
    /// New drop-in scripts, read once they have settled.
    private var pendingDropIns = PendingDropIns()
    private var dropInTimer: TimerToken?
    /// The watcher's health as last logged, to log each change once.
    private var loggedWatchHealth: ConfigWatchHealth?
    /// Called after each batch of changes has been logged.
    var onChanges: (([RegistryChange]) -> Void)?

    /// `dataDirectories`: the per-user agent's read-only, app-shipped definitions
    /// (`$XDG_DATA_DIRS/agentd`), below the config directory's files of the same name.
    init(directory: String, dataDirectories: [String] = [], loop: EventLoop, log: Logger) {
        self.directory = directory
        self.loop = loop
        self.log = log
        let user = SystemFactsProbe.currentUser()
        loader = ConfigLoader(configDirectory: directory, agentUID: user.uid, agentUserName: user.name,
                              privileged: geteuid() == 0)
        loader.dataDirectories = dataDirectories
    }

    var registry: ConfigRegistry { loader.registry }

    var directoryWarnings: [ConfigDiagnostic] { loader.directoryWarnings() }

    /// Kept up to date from each batch of changes (``CrossJobWarnings``).
    var crossJobWarnings: [ConfigDiagnostic] { crossJob.warnings(registry) }
    private var crossJob = CrossJobWarnings()

    var watchStatus: ConfigWatchStatus? {
        guard let health = watcher?.health else { return nil }
        return ConfigWatchStatus(watching: health.watchedDirectories, missing: health.missing)
    }

    /// Watcher events handled per loop handler.
    static let changesPerSlice = 32

    /// Watches first, then scans, so nothing written meanwhile is missed.
    func start() throws {
        // A slice of changes per handler: 10,000 files dropped at once are read in slices that an
        // `agentctl status` or a deadline can come between (a slice is a few milliseconds).
        let mailbox = try Mailbox<ConfigWatchEvent>(loop: loop, maxBatch: Self.changesPerSlice) { [unowned self] batch in
            self.handle(batch)
        }
        self.mailbox = mailbox
        let watcher = ConfigWatcher(configDirectory: directory)
        let sender = mailbox.sender
        try watcher.start { batch in sender.post(contentsOf: batch) }
        self.watcher = watcher
        logWatchHealth()
        startPluginWatch()
        apply(loader.loadAll())
    }

    /// SIGHUP: re-watch whatever was replaced or came back, and read everything again. Files
    /// that vanished wait for a quiet directory as every other deletion does: a SIGHUP in the
    /// middle of a deploy's copy removes nothing the copy has not reached yet.
    func rescanAll() {
        watcher?.rearm()
        var vanished: [String] = []
        apply(loader.loadAll(vanished: &vanished))
        pendingRemovals.addFoundMissing(vanished)
        if !pendingRemovals.isEmpty { settleRemovals() }
    }

    private func handle(_ batch: [ConfigWatchEvent]) {
        var changes: [RegistryChange] = []
        var touchedDropIns = false
        for event in Self.coalesce(batch) {
            switch event {
            case .changed(let path):
                pendingRemovals.cancel(path)
                if PendingDropIns.waits(path, known: loader.knows(path)) {
                    pendingDropIns.add(path, at: loop.now)
                    touchedDropIns = true
                    continue
                }
                if let change = loader.reload(relativePath: path, removingGone: false) {
                    changes.append(change)
                } else {
                    pendingRemovals.add(path)  // deleted since: settled with the other removals
                }
            case .removed(let path):
                // An editor's copy renamed away before it was read: there is nothing to remove.
                if pendingDropIns.forget(path), !loader.knows(path) { continue }
                // Not yet: `rm -rf` of a directory about to be replaced deletes its files first.
                pendingRemovals.add(path)
            case .rescan(let directory):
                pendingRemovals.noteDirectoryReplaced()
                var vanished: [String] = []
                changes.append(contentsOf: loader.rescan(directory: directory, vanished: &vanished))
                pendingRemovals.addFoundMissing(vanished)
            case .overflow:
                log.warning("inotify queue overflowed: rescanning \(directory)")
                var vanished: [String] = []
                changes.append(contentsOf: loader.loadAll(vanished: &vanished))
                pendingRemovals.addFoundMissing(vanished)
            }
        }
        changes += removeRenamedAway(from: &changes)
        apply(changes)
        if !pendingRemovals.isEmpty { settleRemovals() }
        if touchedDropIns { settleDropIns(after: pendingDropIns.wait(at: loop.now)) }
        logWatchHealth()
    }

    /// A job file gone whose identifier another file still there now defines (`mv a.job b.job`,
    /// or a deploy that renames a job's file): the identifier stays defined, so there is no
    /// deploy to wait for, and waiting would only report the two as duplicates for a second.
    /// Removed at once; diagnostics of `changes` that the removal settled (the duplicate) are
    /// dropped, so none is logged.
    private func removeRenamedAway(from changes: inout [RegistryChange]) -> [RegistryChange] {
        let renamed = pendingRemovals.all.filter { path in
            guard let id = registry.identifier(definedBy: path) else { return false }
            return registry.paths(defining: id).contains { $0 != path && !pendingRemovals.contains($0) }
        }
        guard !renamed.isEmpty else { return [] }
        let removals = renamed.map { path in
            pendingRemovals.cancel(path)
            return loader.reload(relativePath: path)
        }
        let current = Set(registry.diagnostics)
        for index in changes.indices { changes[index].diagnostics.removeAll { !current.contains($0) } }
        return removals
    }

    /// Also a script whose event has not reached the loop yet: the file on disk decides.
    func readPendingScript(for id: Identifier) {
        guard let name = DropInScript.fileName(of: id) else { return }
        let path = ConfigPath.jobsDirectory + "/" + name
        guard PendingDropIns.waits(path, known: loader.knows(path)) else { return }
        _ = pendingDropIns.forget(path)
        if let change = loader.reload(relativePath: path, removingGone: false) { apply([change]) }
    }

    /// (Re)starts the settle period of the new drop-in scripts; those still there then are read.
    private func settleDropIns(after wait: Duration) {
        if let token = dropInTimer { loop.cancel(token) }
        dropInTimer = loop.schedule(after: wait) { [unowned self] in self.dropInsSettled() }
    }

    /// Reads a slice of the settled scripts, as the watcher's batches are read (10,000 scripts
    /// copied in at once are read in slices a `status` or a deadline can come between); one
    /// gone meanwhile (renamed over the script it edits) was never read and says nothing.
    private func dropInsSettled() {
        dropInTimer = nil
        let paths = pendingDropIns.take(Self.changesPerSlice)
        apply(paths.compactMap { loader.reload(relativePath: $0, removingGone: false) })
        if !pendingDropIns.isEmpty { settleDropIns(after: .zero) }
    }

    /// Within one batch only the last event per path matters (a burst of writes is one reload).
    static func coalesce(_ batch: [ConfigWatchEvent]) -> [ConfigWatchEvent] {
        var lastIndex: [ConfigWatchEvent: Int] = [:]
        var lastForPath: [String: Int] = [:]
        for (index, event) in batch.enumerated() {
            switch event {
            case .changed(let path), .removed(let path): lastForPath[path] = index
            default: lastIndex[event] = index
            }
        }
        return batch.enumerated().compactMap { index, event in
            switch event {
            case .changed(let path), .removed(let path): return lastForPath[path] == index ? event : nil
            default: return lastIndex[event] == index ? event : nil
            }
        }
    }

    /// (Re)starts the quiet period after which the pending removals take effect: each removal
    /// is checked again then, and one whose directory has gone meanwhile waits for the
    /// directory to come back (`ConfigLoader`).
    private func settleRemovals() {
        if let token = removalTimer { loop.cancel(token) }
        removalTimer = loop.schedule(after: pendingRemovals.quietPeriod) { [unowned self] in self.removalsDue() }
    }

    private func removalsDue() {
        removalTimer = nil
        if let wait = directoriesStillChanging() {
            // The disk, not the events' arrival, says whether a copy is still going on: on a
            // busy machine the events of a swap can reach the loop seconds after the files.
            removalTimer = loop.schedule(after: wait) { [unowned self] in self.removalsDue() }
            return
        }
        let paths = pendingRemovals.takeAll()
        apply(paths.map { loader.reload(relativePath: $0) })
    }

    /// How much longer to wait when a directory of the pending removals changed on disk within
    /// the quiet period (files still being made or removed there); nil when all are quiet.
    private func directoriesStillChanging() -> Duration? {
        let quiet = pendingRemovals.quietPeriod
        let quietMilliseconds = Int64(quiet.components.seconds * 1000 + quiet.components.attoseconds / 1_000_000_000_000_000)
        let now = loop.clock.realtimeMilliseconds
        let newest = pendingRemovals.directories.compactMap { relative in
            FileSystem.changeTimeMilliseconds(relative.isEmpty ? directory : directory + "/" + relative)
        }.max()
        guard let newest, now - newest < quietMilliseconds else { return nil }
        return .milliseconds(max(1, quietMilliseconds - (now - newest)))
    }

    /// Says when a config directory goes missing or the watches are whole again.
    private func logWatchHealth() {
        guard let health = watcher?.health, health != loggedWatchHealth else { return }
        let first = loggedWatchHealth == nil
        loggedWatchHealth = health
        if !health.missing.isEmpty {
            log.warning("config watch: \(health.missing.joined(separator: ", ")) missing; the config "
                + "last read there stays in force until it is back")
        } else if !first {
            log.info("config watch: watching \(health.watchedDirectories) "
                + "\(health.watchedDirectories == 1 ? "directory" : "directories") again")
        }
    }

    // MARK: plugins named in errors

    /// "run chmod +x …" and "install the plugin" work as written: the directories of plugins that
    /// refused job files name are watched, and a change there checks those files again.
    private func startPluginWatch() {
        do {
            pluginWatch = try PluginDirectoryWatch(loop: loop) { [unowned self] in
                self.apply([self.loader.revalidateFailedFiles()].filter { !$0.isEmpty })
                // A directory created or removed may change what can be watched.
                self.watchPluginsNamedInErrors()
            }
        } catch {
            log.warning("cannot watch plugin directories (\(error)): a plugin installed or made "
                + "executable after its job was refused is noticed on SIGHUP")
        }
    }

    private func watchPluginsNamedInErrors() {
        pluginWatch?.watch(plugins: registry.pluginsNamedInErrors)
    }

    // MARK: changes

    /// Logs each change, then hands the batch on.
    private func apply(_ changes: [RegistryChange]) {
        for change in changes {
            for id in change.added { log.info("registered \(id) from \(source(of: id))") }
            // One removed later in the same batch is logged as removed only.
            for id in change.updated where registry.job(id) != nil { log.info("updated \(id) from \(source(of: id))") }
            for id in change.removed { log.info("removed \(id)") }
            for diagnostic in change.diagnostics {
                if diagnostic.severity == .error { log.error(diagnostic.description, fields: LogFields(.configError)) }
                else { log.warning(diagnostic.description) }
            }
        }
        if !changes.isEmpty {
            crossJob.apply(changes, registry: registry)
            watchPluginsNamedInErrors()
        }
        onChanges?(changes)
    }

    private func source(of id: Identifier) -> String {
        guard let job = registry.job(id) else { return "?" }
        switch job.state {
        case .registered: return job.sourcePath
        case .notPermitted(let reason): return "\(job.sourcePath) (\(reason))"
        case .duplicate(let other): return "\(job.sourcePath) (duplicate of \(other))"
        }
    }
}
