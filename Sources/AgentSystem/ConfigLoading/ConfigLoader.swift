// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Keeps a `ConfigRegistry` in step with a config directory on disk: reads the files the watcher
/// names (only those), hands them to the pure registry, and remembers which paths it has seen so a
/// vanished directory can be turned into removals. Used by agentd (live) and `agentctl check`
/// (once).
public struct ConfigLoader {
    public private(set) var registry: ConfigRegistry
    public let configDirectory: String
    private let facts: SystemFactsProbe
    private var knownPaths: Set<String> = []

    public init(configDirectory: String, agentUID: UInt32, agentUserName: String, privileged: Bool) {
        self.configDirectory = configDirectory
        self.registry = ConfigRegistry(agentUID: agentUID, agentUserName: agentUserName,
                                       privileged: privileged, configDirectory: configDirectory)
        self.facts = SystemFactsProbe()
    }

    /// Reads every config file (start-up, SIGHUP, inotify overflow). Files that disappeared since
    /// the last scan are removed.
    public mutating func loadAll() -> [RegistryChange] {
        let present = ConfigFileReader.scan(configDirectory: configDirectory)
        return apply(present: present, replacing: knownPaths)
    }

    /// Re-reads one directory (`""` for the root, `jobs.d`, `manifests.d`) after it was created,
    /// removed or moved.
    public mutating func rescan(directory: String) -> [RegistryChange] {
        let prefix = directory.isEmpty ? "" : directory + "/"
        let inDirectory: (String) -> Bool = { path in
            prefix.isEmpty ? !path.contains("/") : path.hasPrefix(prefix)
        }
        let present = ConfigFileReader.scan(configDirectory: configDirectory).filter(inDirectory)
        return apply(present: present, replacing: knownPaths.filter(inDirectory))
    }

    /// Re-reads one file after inotify named it.
    public mutating func reload(relativePath: String) -> RegistryChange {
        if case .ignored = ConfigPath.role(of: relativePath) {
            return RegistryChange()
        }
        switch ConfigFileReader.read(configDirectory: configDirectory, relativePath: relativePath) {
        case .file(let source):
            knownPaths.insert(relativePath)
            return registry.update(source, facts: facts)
        case .gone:
            return remove(relativePath: relativePath)
        case .unreadable(let message):
            knownPaths.insert(relativePath)
            return registry.recordUnreadable(relativePath: relativePath, message: message)
        }
    }

    /// Forgets a file inotify reported as deleted or moved away.
    public mutating func remove(relativePath: String) -> RegistryChange {
        guard knownPaths.remove(relativePath) != nil else { return RegistryChange() }
        return registry.remove(relativePath: relativePath, facts: facts)
    }

    private mutating func apply(present: [String], replacing previous: Set<String>) -> [RegistryChange] {
        var changes: [RegistryChange] = []
        let presentSet = Set(present)
        for path in previous.subtracting(presentSet).sorted() {
            changes.append(remove(relativePath: path))
        }
        // Settings and manifests first, so jobs are judged against them once, not twice.
        for path in present.sorted(by: Self.loadOrder) {
            changes.append(reload(relativePath: path))
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
