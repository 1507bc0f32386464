// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// Keeps a `ConfigRegistry` in step with a config directory on disk: reads the files the watcher
/// names (only those), hands them to the pure registry, and remembers which paths it has seen so a
/// vanished directory can be turned into removals. Used by agentd (live) and `agentctl check`
/// (once).
///
/// A directory that is missing (the config directory, `manifests.d` or `jobs.d` deleted, moved
/// away, or replaced by something that is not a directory) is not read as empty: what was last
/// read from it stays in force until it is back and rescanned. A deploy that swaps directories
/// (`rm -rf /etc/agentd && cp -a new /etc/agentd`) therefore unregisters nothing that the new
/// directory still defines, and cancels no run.
public struct ConfigLoader {
    public private(set) var registry: ConfigRegistry
    public let configDirectory: String
    /// `agentd --user`: read-only directories (`$XDG_DATA_DIRS/agentd`) whose
    /// `manifests.d/*.manifest` and `jobs.d/*.job` apps ship. A file of the config directory
    /// replaces one of the same relative path there, and an earlier data directory a later one
    /// (systemd's unit search path rule). Not watched: read at start, SIGHUP and every rescan.
    public var dataDirectories: [String] = []
    private let facts: SystemFactsProbe
    private var knownPaths: Set<String> = []

    /// `quotesPrivateFiles`: whether diagnostics may quote files not everyone can read (only for
    /// `agentctl check`, whose user has read them; see `ConfigContext`).
    public init(configDirectory: String, agentUID: UInt32, agentUserName: String, privileged: Bool,
                quotesPrivateFiles: Bool = false) {
        self.configDirectory = configDirectory
        self.registry = ConfigRegistry(agentUID: agentUID, agentUserName: agentUserName,
                                       privileged: privileged, configDirectory: configDirectory,
                                       quotesPrivateFiles: quotesPrivateFiles, zones: ZoneFiles.lookup)
        self.facts = SystemFactsProbe()
    }

    /// Reads every config file (start-up, SIGHUP, inotify overflow). Files that disappeared since
    /// the last scan are removed.
    public mutating func loadAll() -> [RegistryChange] {
        var vanished: [String] = []
        var changes = loadAll(vanished: &vanished)
        for path in vanished { changes.append(remove(relativePath: path)) }
        return changes.filter { !$0.isEmpty }
    }

    /// Reads every config file, but leaves the ones that disappeared in force and lists them in
    /// `vanished`: the daemon removes them once the directory is quiet (`reload` on each), so a
    /// directory being copied into place does not lose the files not copied yet.
    public mutating func loadAll(vanished: inout [String]) -> [RegistryChange] {
        let present = scanWithDataDirectories()
        let missing = missingDirectories
        return apply(present: present,
                     replacing: knownPaths.filter { !missing.contains(Self.directory(of: $0)) },
                     vanished: &vanished)
    }

    /// The config directories (`""`, `manifests.d`, `jobs.d`) that are not there now: each
    /// keeps its last config in force. Under a missing config directory, all three are missing.
    public var missingDirectories: Set<String> {
        guard isDirectory(configDirectory) else { return ["", "manifests.d", "jobs.d"] }
        var missing: Set<String> = []
        for name in ["manifests.d", "jobs.d"] where !isDirectory(configDirectory + "/" + name) {
            missing.insert(name)
        }
        return missing
    }

    /// Warnings about the config directories themselves, as they are now: one others may write
    /// to can lose its files (`ConfigDirectoryRule`).
    public func directoryWarnings() -> [ConfigDiagnostic] {
        [".", "manifests.d", "jobs.d"].compactMap { name in
            let path = name == "." ? configDirectory : configDirectory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return ConfigDirectoryRule.warning(facts: FileFacts(ownerUID: info.st_uid, mode: info.st_mode, groupID: info.st_gid),
                                               relativePath: name, absolutePath: path, context: registry.context)
        }
    }

    /// `manifests.d` or `jobs.d` there but not a directory (a file, a link to nothing): the agent
    /// reads nothing from it and keeps what it last read, which `check` must not call a pass.
    public func directoryErrors() -> [ConfigDiagnostic] {
        ["manifests.d", "jobs.d"].compactMap { name in
            let path = configDirectory + "/" + name
            var entry = stat()
            guard lstat(path, &entry) == 0, !isDirectory(path) else { return nil }
            return ConfigDiagnostic(path: name, message: "is not a directory (a file, or a link to nothing), so agentd "
                + "reads nothing from it and keeps what it last read there: make it one (rm \(path) && mkdir \(path))")
        }
    }

    /// The config directory a relative path lies in: `""`, `manifests.d` or `jobs.d`.
    static func directory(of relativePath: String) -> String {
        guard let slash = relativePath.firstIndex(of: "/") else { return "" }
        return String(relativePath[..<slash])
    }

    private func isMissing(directoryOf relativePath: String) -> Bool {
        missingDirectories.contains(Self.directory(of: relativePath))
    }

    private func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Re-reads one directory (`""` for the root, `jobs.d`, `manifests.d`) after it was created,
    /// removed or moved.
    public mutating func rescan(directory: String) -> [RegistryChange] {
        var vanished: [String] = []
        var changes = rescan(directory: directory, vanished: &vanished)
        for path in vanished { changes.append(remove(relativePath: path)) }
        return changes.filter { !$0.isEmpty }
    }

    /// `rescan`, leaving the files that disappeared in force and listing them in `vanished`
    /// (see `loadAll(vanished:)`).
    public mutating func rescan(directory: String, vanished: inout [String]) -> [RegistryChange] {
        // Gone for now: keep what it held until it is back (and rescanned then).
        if missingDirectories.contains(directory) { return [] }
        let prefix = directory.isEmpty ? "" : directory + "/"
        let inDirectory: (String) -> Bool = { path in
            prefix.isEmpty ? !path.contains("/") : path.hasPrefix(prefix)
        }
        let present = scanWithDataDirectories().filter(inDirectory)
        return apply(present: present, replacing: knownPaths.filter(inDirectory), vanished: &vanished)
    }

    /// Whether the file at `relativePath` has been read (whatever it held).
    public func knows(_ relativePath: String) -> Bool { knownPaths.contains(relativePath) }

    /// Re-reads one file after inotify named it.
    public mutating func reload(relativePath: String) -> RegistryChange {
        reload(relativePath: relativePath, removingGone: true) ?? RegistryChange()
    }

    /// As `reload(relativePath:)`, but a file that is gone is left in force and nil returned:
    /// a change event read late (the file written, then deleted by a deploy swapping the
    /// directory) is no reason to remove it at once; the caller settles it with the removals.
    public mutating func reload(relativePath: String, removingGone: Bool) -> RegistryChange? {
        if case .ignored = ConfigPath.role(of: relativePath) {
            return RegistryChange()
        }
        switch readWithDataDirectories(relativePath) {
        case .file(let source):
            knownPaths.insert(relativePath)
            return registry.update(source, facts: facts)
        case .gone:
            guard removingGone else { return nil }
            return remove(relativePath: relativePath)
        case .unreadable(let message):
            knownPaths.insert(relativePath)
            return registry.recordUnreadable(relativePath: relativePath, message: message)
        }
    }

    /// Checks again every file whose latest version was refused, without re-reading it: a
    /// plugin it names was installed or made executable (`PluginDirectoryWatch`).
    public mutating func revalidateFailedFiles() -> RegistryChange {
        registry.revalidateFailedFiles(facts: facts)
    }

    /// Forgets a file inotify reported as deleted or moved away.
    public mutating func remove(relativePath: String) -> RegistryChange {
        // Its whole directory went: a deploy in progress, not a removal (yet).
        if isMissing(directoryOf: relativePath) { return RegistryChange() }
        guard knownPaths.remove(relativePath) != nil else { return RegistryChange() }
        return registry.remove(relativePath: relativePath, facts: facts)
    }

    /// The config directory's files, and the data directories' that it does not shadow.
    private func scanWithDataDirectories() -> [String] {
        let own = ConfigFileReader.scan(configDirectory: configDirectory)
        guard !dataDirectories.isEmpty else { return own }
        var all = Set(own)
        for directory in dataDirectories {
            all.formUnion(ConfigFileReader.scan(configDirectory: directory).filter(Self.isShippable))
        }
        return all.sorted()
    }

    /// The file from the config directory, else from the first data directory that has it.
    private func readWithDataDirectories(_ relativePath: String) -> ConfigFileReader.ReadResult {
        // Of a drop-in script only the header lines are read: it may be a program of any size,
        // as in a run-parts directory.
        var headLines: Int?
        if case .dropInScript = ConfigPath.role(of: relativePath) { headLines = DropInScript.headerLineLimit }
        let own = ConfigFileReader.read(configDirectory: configDirectory, relativePath: relativePath,
                                        headLines: headLines)
        guard case .gone = own, Self.isShippable(relativePath) else { return own }
        for directory in dataDirectories {
            let shipped = ConfigFileReader.read(configDirectory: directory, relativePath: relativePath)
            if case .gone = shipped { continue }
            return shipped
        }
        return own
    }

    /// What an app may ship in a data directory: manifests and job files (not agentd.conf, not
    /// drop-in scripts, which run as their file's owner).
    static func isShippable(_ relativePath: String) -> Bool {
        switch ConfigPath.role(of: relativePath) {
        case .manifest, .jobDefinition: return true
        default: return false
        }
    }

    /// Reads the `present` files of a scan and lists in `vanished` the `previous` ones it no
    /// longer found. A file the scan listed may be gone by the time it is read (the next
    /// `rm -rf` of a deploy swapping the directory again): it is listed as vanished too, not
    /// removed at once, since its directory is still there for the moment.
    mutating func apply(present: [String], replacing previous: Set<String>,
                        vanished: inout [String]) -> [RegistryChange] {
        var changes: [RegistryChange] = []
        vanished += previous.subtracting(Set(present)).sorted()
        // Settings and manifests first, so jobs are judged against them once, not twice.
        for path in present.sorted(by: Self.loadOrder) {
            if let change = reload(relativePath: path, removingGone: false) {
                changes.append(change)
            } else if knownPaths.contains(path) {
                vanished.append(path)
            }
        }
        return changes.filter { !$0.isEmpty }
    }

    private static func loadOrder(_ a: String, _ b: String) -> Bool {
        func rank(_ path: String) -> Int {
            switch ConfigPath.role(of: path) {
            case .agentSettings: return 0
            case .manifest: return 1
            default: return 2
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        return ra != rb ? ra < rb : a < b
    }
}
