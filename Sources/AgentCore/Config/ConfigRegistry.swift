// SPDX-License-Identifier: Apache-2.0
/// A job file as the registry holds it: its definition and where it stands.
public struct RegisteredJob: Hashable, Sendable {
    public enum State: Hashable, Sendable {
        /// Permitted and the only (or winning) definition of its identifier: it is scheduled.
        case registered
        /// No manifest permits its identifier, or none permits its kind. `reason` starts with
        /// `not-permitted:` and says which manifest would need what.
        case notPermitted(reason: String)
        /// Another file, `ofPath`, defines the same identifier and wins (the smaller path).
        case duplicate(ofPath: String)
    }

    public var definition: JobDefinition
    /// Relative to the config directory (`jobs.d/backup.job`).
    public var sourcePath: String
    public var state: State
    /// The file's owner, group and mode (who may read it: DESIGN §9's read rule); nil where a
    /// test built the job without them.
    public var file: JobFileFacts?

    /// Whether every socket reader may read the file's text (DESIGN §3: a diagnostic never
    /// quotes what they could not read themselves); true where a test gave no facts.
    public var isPublic: Bool {
        guard let file else { return true }
        return file.reachableByEveryone && file.facts.isWorldReadable
    }

    public init(definition: JobDefinition, sourcePath: String, state: State, file: JobFileFacts? = nil) {
        self.definition = definition
        self.sourcePath = sourcePath
        self.state = state
        self.file = file
    }
}

/// What one registry operation changed, for the daemon to act on.
///
/// `added`, `removed` and `updated` are about the set of *registered* (schedulable) jobs:
/// a job that becomes not permitted, or loses to a duplicate, is `removed`; one that becomes
/// permitted or is promoted is `added`; a registered job whose definition or source file changed
/// is `updated`.
public struct RegistryChange: Sendable, Hashable {
    public var added: [Identifier]
    public var removed: [Identifier]
    public var updated: [Identifier]
    /// The diagnostics this change produced: every current diagnostic of the file it touched,
    /// and new duplicate / not-permitted diagnostics it caused on other files.
    public var diagnostics: [ConfigDiagnostic]
    /// `agentd.conf`'s settings are different now.
    public var settingsChanged: Bool
    /// A manifest was added, changed or removed: submissions checked with `isPermitted` before
    /// may need checking again.
    public var permissionsChanged: Bool

    public init(added: [Identifier] = [], removed: [Identifier] = [], updated: [Identifier] = [],
                diagnostics: [ConfigDiagnostic] = [], settingsChanged: Bool = false,
                permissionsChanged: Bool = false)
    {
        self.added = added
        self.removed = removed
        self.updated = updated
        self.diagnostics = diagnostics
        self.settingsChanged = settingsChanged
        self.permissionsChanged = permissionsChanged
    }

    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && updated.isEmpty && diagnostics.isEmpty
            && !settingsChanged && !permissionsChanged
    }
}

/// Every config file of the config directory, kept up to date one file at a time.
///
/// The daemon hands it each file that inotify reports (`update`), each file that went away
/// (`remove`) and each file it could not read (`recordUnreadable`); the registry answers what
/// changed. A single-file update costs O(1) in the number of jobs loaded; a manifest change
/// re-evaluates only the jobs its patterns (old and new) match.
///
/// Rules:
/// - A file with errors never replaces its last good version: the previous good parse of that
///   path stays in force, and the path's diagnostics are the new errors (plus a note that the
///   last good version is kept). Fixing the file clears them; removing it removes both.
/// - Several files defining one identifier: the file whose relative path is smallest (byte-wise)
///   wins, the others are `.duplicate` with an error; removing the winner promotes the next.
/// - A job is registered only if a manifest permits its identifier and lists its kind in
///   `BackgroundModes=`; otherwise it stays visible in `allJobs` as `.notPermitted`.
/// - `agentd.conf` absent means `AgentSettings.defaults`.
public struct ConfigRegistry: Sendable {
    public let configDirectory: String
    public let context: ConfigContext

    public private(set) var settings: AgentSettings = .defaults
    /// Whether a good `agentd.conf` is in force (else the defaults are).
    private var hasSettingsFile = false

    private var manifests: [String: Manifest] = [:]
    /// Manifest paths (sorted) by the exact identifiers they permit.
    private var exactPermits: [Identifier: [String]] = [:]
    /// Manifest paths (sorted) by the wildcard prefixes (`com.example.`) they permit.
    private var prefixPermits: [String: [String]] = [:]

    private struct JobFile: Sendable {
        var definition: JobDefinition
        var identifierLine: Int?
        var onSuccessLine: Int?
        var file: JobFileFacts
    }
    private var jobFiles: [String: JobFile] = [:]
    private var execLines = ExecLinePool()
    /// Paths defining each identifier, smallest (the winner) first.
    private var pathsByIdentifier: [Identifier: [String]] = [:]
    /// The state of each identifier's winning file.
    private var winnerStates: [Identifier: RegisteredJob.State] = [:]
    private var registeredCount = 0
    /// Every dot-prefix (`a.`, `a.b.`) of every defined identifier, so a wildcard manifest change
    /// finds its jobs without scanning them all.
    private var identifiersByPrefix: [String: Set<Identifier>] = [:]

    /// Diagnostics of each file's latest parse (or read failure).
    private var fileDiagnostics: [String: [ConfigDiagnostic]] = [:]
    /// Duplicate / not-permitted diagnostics, which depend on other files.
    private var derivedDiagnostics: [String: ConfigDiagnostic] = [:]
    /// Files whose latest version failed, kept so that `revalidateFailedFiles` can retry them
    /// when the system changes (a plugin or user appears after its job file).
    private var failedSources: [String: ConfigSource] = [:]
    /// Job files whose latest version was refused, by path: listed rather than vanishing.
    private var jobErrors: [String: JobFileWithErrors] = [:]
    /// Job files refused only because their `OnSuccess=` closed a cycle: tried again whenever
    /// another job changes, since that may have broken the cycle.
    private var cycleRefused: Set<String> = []

    /// `quotesPrivateFiles`: see `ConfigContext.quotesPrivateFiles` (the agent leaves it off).
    public init(agentUID: UInt32, agentUserName: String, privileged: Bool,
                configDirectory: String = "/etc/agentd", quotesPrivateFiles: Bool = false,
                zones: ZoneLookup = .none)
    {
        self.configDirectory = configDirectory
        var context = ConfigContext(configDirectory: configDirectory, agentUID: agentUID,
                                     agentUserName: agentUserName, privileged: privileged,
                                     quotesPrivateFiles: quotesPrivateFiles)
        context.zones = zones
        self.context = context
    }

    // MARK: Queries

    public var manifestCount: Int { manifests.count }
    /// The manifests in force, by path (`manifests.d/NAME.manifest`).
    public var manifestsByPath: [String: Manifest] { manifests }
    /// Registered (schedulable) jobs.
    public var jobCount: Int { registeredCount }

    /// The job file in force for `id` — registered or not permitted — or nil when no file
    /// defines it. Check `state` before scheduling it.
    public func job(_ id: Identifier) -> RegisteredJob? {
        guard let path = pathsByIdentifier[id]?.first, let file = jobFiles[path],
            let state = winnerStates[id]
        else { return nil }
        return RegisteredJob(definition: file.definition, sourcePath: path, state: state, file: file.file)
    }

    /// The identifier the job file at `path` defines, if one is in force there.
    public func identifier(definedBy path: String) -> Identifier? {
        jobFiles[path]?.definition.identifier
    }

    /// The job files in force that define `id`, the winner first.
    public func paths(defining id: Identifier) -> [String] {
        pathsByIdentifier[id] ?? []
    }

    /// Each registered job (its identifier's winning file, permitted), in no set order: for the
    /// checks `status` runs over every job on the agent's loop, where `allJobs`' sort and its
    /// not-permitted and duplicate files cost milliseconds with 10,000 jobs.
    public func forEachRegistered(_ body: (RegisteredJob) -> Void) {
        for (id, state) in winnerStates where state == .registered {
            guard let path = pathsByIdentifier[id]?.first, let file = jobFiles[path] else { continue }
            body(RegisteredJob(definition: file.definition, sourcePath: path, state: state, file: file.file))
        }
    }

    /// Every parsed job file, including not-permitted and duplicate ones, sorted by identifier
    /// and then path.
    public var allJobs: [RegisteredJob] {
        var result: [RegisteredJob] = []
        result.reserveCapacity(jobFiles.count)
        for (id, paths) in pathsByIdentifier {
            guard let winner = paths.first else { continue }
            for path in paths {
                guard let file = jobFiles[path] else { continue }
                let state = path == winner
                    ? winnerStates[id] ?? .registered : .duplicate(ofPath: winner)
                result.append(RegisteredJob(definition: file.definition, sourcePath: path, state: state,
                                            file: file.file))
            }
        }
        return result.sorted {
            $0.definition.identifier != $1.definition.identifier
                ? $0.definition.identifier < $1.definition.identifier
                : Self.precedes($0.sourcePath, $1.sourcePath)
        }
    }

    /// Job files whose latest version was refused and that have no earlier good version in
    /// force (those are listed as they were), sorted by path.
    public var jobFilesWithErrors: [JobFileWithErrors] {
        jobErrors.values.filter { !$0.hasVersionInForce }
            .sorted { Self.precedes($0.sourcePath, $1.sourcePath) }
    }

    /// The refused job file naming `id`, when no file in force defines it.
    public func jobFileWithErrors(_ id: Identifier) -> JobFileWithErrors? {
        jobFilesWithErrors.first { $0.identifier == id }
    }

    /// The plugins named by refused job files (absolute paths): installing one, or `chmod +x`,
    /// should take effect without a reload (`revalidateFailedFiles`).
    public var pluginsNamedInErrors: Set<String> {
        Set(jobErrors.values.compactMap(\.plugin))
    }

    /// The manifest in force at `relativePath`, if any.
    public func manifest(at relativePath: String) -> Manifest? {
        ConfigPath.normalized(relativePath).flatMap { manifests[$0] }
    }

    /// The manifest that owns `id` of `kind` (DESIGN §9: whose `Users=`/`Groups=` act for it),
    /// by the budget rule (`BudgetAccounts`): an exact pattern over a wildcard, a longer
    /// wildcard over a shorter one, then the name that sorts first. Nil when none permits it.
    /// O(length of `id`).
    public func owningManifest(of id: Identifier, kind: JobKind) -> NamedManifest? {
        func best(_ paths: [String]?) -> NamedManifest? {
            var found: NamedManifest?
            for path in paths ?? [] {
                guard let manifest = manifests[path], manifest.backgroundModes.contains(kind),
                      let name = BudgetAccounts.manifestName(ofPath: path) else { continue }
                if found == nil || name.utf8.lexicographicallyPrecedes(found?.name.utf8 ?? "".utf8) {
                    found = NamedManifest(name: name, manifest: manifest)
                }
            }
            return found
        }
        if let exact = best(exactPermits[id]) { return exact }
        var raw = Substring(id.rawValue)
        while let dot = raw.lastIndex(of: ".") {
            raw = raw[..<dot]
            if let owner = best(prefixPermits[String(raw) + "."]) { return owner }
        }
        return nil
    }

    /// The manifest whose identifiers `id` of `kind` counts as, for what names its app
    /// (``AppIdentity``): the same rule as ``owningManifest(of:kind:)``.
    public func governingManifest(of id: Identifier, kind: JobKind) -> Manifest? {
        owningManifest(of: id, kind: kind)?.manifest
    }

    /// Current errors and warnings of every file, sorted by path, then line.
    public var diagnostics: [ConfigDiagnostic] {
        var all: [ConfigDiagnostic] = []
        for list in fileDiagnostics.values { all += list }
        all += derivedDiagnostics.values
        return Self.sorted(all)
    }

    /// Whether some manifest permits `id`, for any kind.
    public func permitsAnywhere(_ id: Identifier) -> Bool {
        manifests.values.contains { $0.permitsIdentifier(id) }
    }

    /// Whether some manifest permits `id` with `kind` (for submissions of identifiers that only
    /// a wildcard covers).
    public func isPermitted(_ id: Identifier, kind: JobKind) -> Bool {
        permission(for: id, kind: kind) == .registered
    }

    /// Why `id` with `kind` is not permitted (`not-permitted: …`), or nil when it is.
    public func permissionProblem(_ id: Identifier, kind: JobKind) -> String? {
        if case .notPermitted(let reason) = permission(for: id, kind: kind) { return reason }
        return nil
    }

    /// Every manifest in force as a budget account (by name), for the scheduler's
    /// per-manifest daily budgets. O(manifests): built when a manifest changed.
    public var budgetAccounts: BudgetAccounts {
        var byName: [String: Manifest] = [:]
        for (path, manifest) in manifests {
            if let name = BudgetAccounts.manifestName(ofPath: path) { byName[name] = manifest }
        }
        return BudgetAccounts(byName)
    }

    /// Whether agentd.conf's `Deny=` forbids `id`.
    public func isDenied(_ id: Identifier) -> Bool { settings.denies(id) }

    // MARK: Changes

    /// Takes in the current contents of one file.
    public mutating func update(_ source: ConfigSource, facts: some SystemFacts) -> RegistryChange {
        guard let path = ConfigPath.normalized(source.relativePath) else { return RegistryChange() }
        let role = ConfigPath.role(of: path)
        if case .ignored = role { return RegistryChange() }
        var source = source
        source.relativePath = path
        let (checked, lines) = ConfigCheck.checkDetailed(source, context: context, facts: facts)
        var result = checked
        cycleRefused.remove(path)
        if case .job(let definition)? = result.value,
           let cycle = ChainCycle.find(from: definition, in: { self.definitionInForce($0, replacing: path) })
        {
            // Refused like a value error: the last good version stays in force.
            cycleRefused.insert(path)
            result = .failure(result.diagnostics + [ConfigDiagnostic(
                path: path, line: lines.onSuccess, message: ChainCycle.message(cycle))])
        }

        guard let value = result.value else {
            failedSources[path] = source
            var diagnostics = result.diagnostics
            if hasGoodVersion(path, role: role) { diagnostics.append(keptNote(path)) }
            fileDiagnostics[path] = diagnostics
            noteJobErrors(path, role: role, diagnostics: diagnostics, lines: lines)
            return RegistryChange(diagnostics: Self.sorted(diagnostics))
        }
        failedSources[path] = nil
        jobErrors[path] = nil
        fileDiagnostics[path] = result.diagnostics.isEmpty ? nil : result.diagnostics

        var change: RegistryChange
        switch value {
        case .agentSettings(let newSettings):
            change = RegistryChange(settingsChanged: newSettings != settings)
            settings = newSettings
            hasSettingsFile = true
        case .manifest(let manifest):
            change = setManifest(manifest, at: path)
        case .job(let definition):
            // Not world-readable: its own mode already keeps others out (a link into a private
            // directory is looked at only for world-readable files).
            let reachable = source.facts.isWorldReadable ? source.contentIsPublic : true
            change = setJob(JobFile(definition: definition, identifierLine: lines.identifier,
                                    onSuccessLine: lines.onSuccess,
                                    file: JobFileFacts(facts: source.facts, reachableByEveryone: reachable)), at: path)
        case .ignored:
            change = removeJob(at: path)
        }
        change.diagnostics = Self.sorted(currentDiagnostics(of: path) + change.diagnostics)
        return retryingCycleRefused(after: change, except: path, facts: facts)
    }

    /// The definition that `id`'s chain would follow: its winning file's, or `path`'s own new
    /// version when `path` is that file.
    private func definitionInForce(_ id: Identifier, replacing path: String) -> JobDefinition? {
        guard let winner = pathsByIdentifier[id]?.first, winner != path else { return nil }
        return jobFiles[winner]?.definition
    }

    /// After a job change, files refused for a chain cycle may be acceptable now.
    private mutating func retryingCycleRefused(after change: RegistryChange, except path: String,
                                               facts: some SystemFacts) -> RegistryChange {
        let candidates = cycleRefused.subtracting([path]).sorted(by: Self.precedes)
        guard !candidates.isEmpty, !change.added.isEmpty || !change.removed.isEmpty || !change.updated.isEmpty
        else { return change }
        var merged = ChangeMerger()
        merged.add(change)
        for candidate in candidates {
            guard let source = failedSources[candidate] else { continue }
            cycleRefused.remove(candidate)
            let retried = update(source, facts: facts)
            // Still a cycle: nothing new to say.
            if !cycleRefused.contains(candidate) { merged.add(retried) }
        }
        return merged.result
    }

    /// Forgets a file that was deleted or renamed away. (`facts` is not needed today — removal
    /// only re-evaluates what is loaded — but keeps the three entry points alike.)
    public mutating func remove(relativePath: String, facts: some SystemFacts) -> RegistryChange {
        guard let path = ConfigPath.normalized(relativePath) else { return RegistryChange() }
        cycleRefused.remove(path)
        failedSources[path] = nil
        fileDiagnostics[path] = nil
        jobErrors[path] = nil
        switch ConfigPath.role(of: path) {
        case .agentSettings:
            let changed = hasSettingsFile && settings != .defaults
            settings = .defaults
            hasSettingsFile = false
            return RegistryChange(settingsChanged: changed)
        case .manifest:
            return removeManifest(at: path)
        case .jobDefinition, .dropInScript:
            return retryingCycleRefused(after: removeJob(at: path), except: path, facts: facts)
        case .ignored:
            return RegistryChange()
        }
    }

    /// Records that a file exists but could not be read (`message`: the system's reason, such
    /// as "Too many levels of symbolic links"). Its last good version stays in force.
    public mutating func recordUnreadable(relativePath: String, message: String) -> RegistryChange {
        guard let path = ConfigPath.normalized(relativePath) else { return RegistryChange() }
        let role = ConfigPath.role(of: path)
        if case .ignored = role { return RegistryChange() }
        failedSources[path] = nil
        var diagnostics = [ConfigDiagnostic(path: path, message: "cannot be read: \(message)")]
        if hasGoodVersion(path, role: role) { diagnostics.append(keptNote(path)) }
        fileDiagnostics[path] = diagnostics
        noteJobErrors(path, role: role, diagnostics: diagnostics, lines: JobLines())
        return RegistryChange(diagnostics: diagnostics)
    }

    /// Paths whose latest version was refused, in order.
    public var failedPaths: [String] {
        failedSources.keys.sorted(by: Self.precedes)
    }

    /// Parses again every file whose latest version was refused, for when the system changed
    /// under it: a plugin was installed or made executable, a user was created.
    public mutating func revalidateFailedFiles(facts: some SystemFacts) -> RegistryChange {
        var merged = ChangeMerger()
        for path in failedPaths {
            guard let source = failedSources[path] else { continue }
            // A drop-in script is its own plugin: missing, it was deleted, and its removal
            // (which waits for a deploy to settle) will say so; it is no plugin gone missing.
            if case .dropInScript = ConfigPath.role(of: path),
               case .missing = facts.plugin(at: context.absolutePath(of: path))
            {
                continue
            }
            let before = fileDiagnostics[path]
            var change = update(source, facts: facts)
            // A file that fails exactly as before has nothing new to report.
            if fileDiagnostics[path] == before, change.added.isEmpty { change.diagnostics = [] }
            merged.add(change)
        }
        return merged.result
    }

    // MARK: Manifests

    private mutating func setManifest(_ manifest: Manifest, at path: String) -> RegistryChange {
        let old = manifests[path]
        if old == manifest { return RegistryChange() }
        var affected = identifiersMatching(manifest)
        if let old { affected.formUnion(identifiersMatching(old)) }
        let ids = Array(affected)
        let before = snapshot(ids)
        if let old { unindex(old, path: path) }
        manifests[path] = manifest
        index(manifest, path: path)
        var change = reevaluate(ids, before: before, pathsBefore: paths(of: ids))
        change.permissionsChanged = true
        return change
    }

    private mutating func removeManifest(at path: String) -> RegistryChange {
        guard let old = manifests[path] else { return RegistryChange() }
        let ids = Array(identifiersMatching(old))
        let before = snapshot(ids)
        unindex(old, path: path)
        manifests[path] = nil
        var change = reevaluate(ids, before: before, pathsBefore: paths(of: ids))
        change.permissionsChanged = true
        return change
    }

    private mutating func index(_ manifest: Manifest, path: String) {
        for pattern in manifest.permitted {
            switch pattern {
            case .exact(let id): Self.insertSorted(path, into: &exactPermits[id, default: []])
            case .prefix(let prefix): Self.insertSorted(path, into: &prefixPermits[prefix, default: []])
            }
        }
    }

    private mutating func unindex(_ manifest: Manifest, path: String) {
        for pattern in manifest.permitted {
            switch pattern {
            case .exact(let id):
                exactPermits[id]?.removeAll { $0 == path }
                if exactPermits[id]?.isEmpty == true { exactPermits[id] = nil }
            case .prefix(let prefix):
                prefixPermits[prefix]?.removeAll { $0 == path }
                if prefixPermits[prefix]?.isEmpty == true { prefixPermits[prefix] = nil }
            }
        }
    }

    /// Defined identifiers that some pattern of `manifest` matches.
    private func identifiersMatching(_ manifest: Manifest) -> Set<Identifier> {
        var result = Set<Identifier>()
        for pattern in manifest.permitted {
            switch pattern {
            case .exact(let id):
                if pathsByIdentifier[id] != nil { result.insert(id) }
            case .prefix(let prefix):
                if let ids = identifiersByPrefix[prefix] { result.formUnion(ids) }
            }
        }
        return result
    }

    /// The state a winning job file with `id` and `kind` has under the current manifests.
    private func permission(for id: Identifier, kind: JobKind) -> RegisteredJob.State {
        var matching: [String] = exactPermits[id] ?? []
        if !prefixPermits.isEmpty {
            id.forEachDotPrefix { prefix in
                if let paths = prefixPermits[prefix] { matching += paths }
            }
        }
        if matching.contains(where: { manifests[$0]?.backgroundModes.contains(kind) == true }) {
            return .registered
        }
        if let first = matching.min(by: Self.precedes) {
            return .notPermitted(reason: "not-permitted: \(first) permits \(id) but not "
                + "Kind=\(kind.rawValue); add \(kind.rawValue) to its BackgroundModes=")
        }
        var suggestion = ""
        if let lastDot = id.rawValue.utf8.lastIndex(of: TextBytes.dot) {
            suggestion = " (or \(id.rawValue[..<lastDot]).*)"
        }
        return .notPermitted(reason: "not-permitted: no manifest permits \(id); add it\(suggestion) "
            + "to PermittedIdentifiers= of a manifest in \(ConfigPath.manifestsDirectory)/, with "
            + "\(kind.rawValue) in its BackgroundModes=")
    }

    // MARK: Jobs

    private mutating func setJob(_ file: JobFile, at path: String) -> RegistryChange {
        var file = file
        if let shared = execLines.stored(equalTo: file.definition.exec) { file.definition.exec = shared }
        let newID = file.definition.identifier
        let old = jobFiles[path]
        var ids = [newID]
        if let oldID = old?.definition.identifier, oldID != newID { ids.append(oldID) }
        let before = snapshot(ids)
        let pathsBefore = paths(of: ids)
        if let oldID = old?.definition.identifier, oldID != newID { detach(path, from: oldID) }
        jobFiles[path] = file
        if old?.definition.identifier != newID { attach(path, to: newID) }
        return reevaluate(ids, before: before, pathsBefore: pathsBefore)
    }

    private mutating func removeJob(at path: String) -> RegistryChange {
        guard let old = jobFiles[path] else { return RegistryChange() }
        let ids = [old.definition.identifier]
        let before = snapshot(ids)
        let pathsBefore = paths(of: ids)
        detach(path, from: old.definition.identifier)
        jobFiles[path] = nil
        execLines.prune(keeping: jobFiles.values.map(\.definition.exec), whenOver: jobFiles.count)
        return reevaluate(ids, before: before, pathsBefore: pathsBefore)
    }

    private mutating func attach(_ path: String, to id: Identifier) {
        if pathsByIdentifier[id] == nil {
            id.forEachDotPrefix { identifiersByPrefix[$0, default: []].insert(id) }
        }
        Self.insertSorted(path, into: &pathsByIdentifier[id, default: []])
    }

    private mutating func detach(_ path: String, from id: Identifier) {
        pathsByIdentifier[id]?.removeAll { $0 == path }
        guard pathsByIdentifier[id]?.isEmpty == true else { return }
        pathsByIdentifier[id] = nil
        id.forEachDotPrefix { prefix in
            identifiersByPrefix[prefix]?.remove(id)
            if identifiersByPrefix[prefix]?.isEmpty == true { identifiersByPrefix[prefix] = nil }
        }
    }

    private func paths(of ids: [Identifier]) -> [String] {
        ids.flatMap { pathsByIdentifier[$0] ?? [] }
    }

    /// What the scheduler sees of `id`: the registered definition and its file, or nil.
    private struct Registered: Equatable {
        var definition: JobDefinition
        var path: String
    }

    private func snapshot(_ ids: [Identifier]) -> [Identifier: Registered] {
        var result: [Identifier: Registered] = [:]
        for id in ids {
            if let registered = registered(id) { result[id] = registered }
        }
        return result
    }

    private func registered(_ id: Identifier) -> Registered? {
        guard winnerStates[id] == .registered, let path = pathsByIdentifier[id]?.first,
            let file = jobFiles[path]
        else { return nil }
        return Registered(definition: file.definition, path: path)
    }

    /// Recomputes winner and state of `ids`, refreshes the derived diagnostics of every file
    /// involved, and reports the difference to `before`.
    private mutating func reevaluate(_ ids: [Identifier], before: [Identifier: Registered],
                                     pathsBefore: [String]) -> RegistryChange
    {
        var seen = Set<Identifier>()
        let unique = ids.filter { seen.insert($0).inserted }

        let touchedPaths = Set(pathsBefore + paths(of: unique))
        var oldDerived: [String: ConfigDiagnostic] = [:]
        for path in touchedPaths {
            if let diagnostic = derivedDiagnostics.removeValue(forKey: path) {
                oldDerived[path] = diagnostic
            }
        }

        var change = RegistryChange()
        for id in unique {
            let oldState = winnerStates[id]
            if let paths = pathsByIdentifier[id], let winner = paths.first, let file = jobFiles[winner] {
                let state = permission(for: id, kind: file.definition.kind)
                winnerStates[id] = state
                if oldState == .registered, state != .registered { registeredCount -= 1 }
                if oldState != .registered, state == .registered { registeredCount += 1 }
                if case .notPermitted(let reason) = state {
                    derivedDiagnostics[winner] = ConfigDiagnostic(
                        path: winner, line: file.identifierLine, message: "Identifier: \(reason)")
                }
                for loser in paths.dropFirst() {
                    derivedDiagnostics[loser] = ConfigDiagnostic(
                        path: loser, line: jobFiles[loser]?.identifierLine,
                        message: "Identifier: \(id) is also defined by \(winner), which wins "
                            + "(the alphabetically first file); this file is ignored until one "
                            + "of them changes its identifier or goes away")
                }
            } else {
                winnerStates[id] = nil
                if oldState == .registered { registeredCount -= 1 }
            }
            switch (before[id], registered(id)) {
            case (nil, .some): change.added.append(id)
            case (.some, nil): change.removed.append(id)
            case (.some(let old), .some(let new)) where old != new: change.updated.append(id)
            default: break
            }
        }
        for path in touchedPaths {
            if let diagnostic = derivedDiagnostics[path], oldDerived[path] != diagnostic {
                change.diagnostics.append(diagnostic)
            }
        }
        change.added.sort()
        change.removed.sort()
        change.updated.sort()
        return change
    }

    // MARK: Helpers

    private func hasGoodVersion(_ path: String, role: ConfigPath.Role) -> Bool {
        switch role {
        case .agentSettings: return hasSettingsFile
        case .manifest: return manifests[path] != nil
        case .jobDefinition, .dropInScript: return jobFiles[path] != nil
        case .ignored: return false
        }
    }

    /// Remembers a refused job file for `list` and `explain` (no-op for other roles).
    private mutating func noteJobErrors(_ path: String, role: ConfigPath.Role,
                                        diagnostics: [ConfigDiagnostic], lines: JobLines)
    {
        guard role == .jobDefinition || role == .dropInScript,
            let first = diagnostics.first(where: { $0.severity == .error }) ?? diagnostics.first
        else { return }
        var identifier = lines.identifierValue
        if identifier == nil, role == .dropInScript, let name = path.split(separator: "/").last {
            identifier = try? DropInScript.identifier(forFileName: String(name)).get()
        }
        let file = failedSources[path].map { source in
            JobFileFacts(facts: source.facts, reachableByEveryone: source.facts.isWorldReadable ? source.contentIsPublic : true)
        }
        jobErrors[path] = JobFileWithErrors(
            identifier: identifier, sourcePath: path, error: first, plugin: lines.plugin,
            hasVersionInForce: hasGoodVersion(path, role: role), file: file)
    }

    private func keptNote(_ path: String) -> ConfigDiagnostic {
        ConfigDiagnostic(path: path, severity: .note,
                         message: "the last good version of this file stays in force until "
                            + "the errors are fixed")
    }

    private func currentDiagnostics(of path: String) -> [ConfigDiagnostic] {
        (fileDiagnostics[path] ?? []) + (derivedDiagnostics[path].map { [$0] } ?? [])
    }

    /// Byte-wise path order, as `strcmp` and `ls` in the C locale sort.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private static func insertSorted(_ path: String, into paths: inout [String]) {
        if paths.contains(path) { return }
        let index = paths.firstIndex { precedes(path, $0) } ?? paths.endIndex
        paths.insert(path, at: index)
    }

    static func sorted(_ diagnostics: [ConfigDiagnostic]) -> [ConfigDiagnostic] {
        var seen = Set<ConfigDiagnostic>()
        let unique = diagnostics.filter { seen.insert($0).inserted }
        return unique.enumerated().sorted { a, b in
            let x = a.element, y = b.element
            if x.path != y.path { return precedes(x.path, y.path) }
            // A note ("the last good version … stays in force") is about the errors above it.
            let nx = x.severity == .note, ny = y.severity == .note
            if nx != ny { return ny }
            let lx = x.line ?? 0, ly = y.line ?? 0
            if lx != ly { return lx < ly }
            return a.offset < b.offset
        }.map(\.element)
    }
}

/// Folds several changes into one: the first "before" and the last "after" of each identifier.
private struct ChangeMerger {
    private var wasRegistered: [Identifier: Bool] = [:]
    private var isRegistered: [Identifier: Bool] = [:]
    private var diagnostics: [ConfigDiagnostic] = []
    private var settingsChanged = false
    private var permissionsChanged = false

    mutating func add(_ change: RegistryChange) {
        for id in change.added { note(id, before: false, after: true) }
        for id in change.removed { note(id, before: true, after: false) }
        for id in change.updated { note(id, before: true, after: true) }
        diagnostics += change.diagnostics
        settingsChanged = settingsChanged || change.settingsChanged
        permissionsChanged = permissionsChanged || change.permissionsChanged
    }

    private mutating func note(_ id: Identifier, before: Bool, after: Bool) {
        if wasRegistered[id] == nil { wasRegistered[id] = before }
        isRegistered[id] = after
    }

    var result: RegistryChange {
        var change = RegistryChange(diagnostics: ConfigRegistry.sorted(diagnostics),
                                    settingsChanged: settingsChanged,
                                    permissionsChanged: permissionsChanged)
        for (id, before) in wasRegistered {
            switch (before, isRegistered[id] ?? before) {
            case (false, true): change.added.append(id)
            case (true, false): change.removed.append(id)
            case (true, true): change.updated.append(id)
            default: break
            }
        }
        change.added.sort()
        change.removed.sort()
        change.updated.sort()
        return change
    }
}
