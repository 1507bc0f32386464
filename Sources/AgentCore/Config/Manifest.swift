// SPDX-License-Identifier: Apache-2.0
/// A package's declaration of the task identifiers it may use and the kinds of work it may do
/// (`manifests.d/NAME.manifest`, after iOS's `BGTaskSchedulerPermittedIdentifiers` and
/// `UIBackgroundModes`):
/// ```
/// [Manifest]
/// PermittedIdentifiers=com.example.photos.refresh com.example.photos.export.*
/// BackgroundModes=refresh processing continued
/// DailyBudget=12
/// Description=Photos
/// Icon=org.example.Photos
/// DesktopEntry=org.example.Photos
/// ```
/// Both list keys are space-separated, repeatable; an empty assignment clears the list.
/// A manifest without `BackgroundModes=` permits no kind at all. `DailyBudget=` (optional) is
/// this manifest's own count of discretionary launches a day; without it, agentd.conf's applies.
/// `Description=`, `Icon=`, `DesktopEntry=` (optional) name the package's app in the desktop
/// notifications of the jobs it permits, unless a job names its own (``AppIdentity``).
public struct Manifest: Hashable, Sendable {
    public var permitted: [IdentifierPattern]
    public var backgroundModes: Set<JobKind>
    /// The manifest's own `DailyBudget=`; nil: agentd.conf's `DailyBudget=` (the default);
    /// `AgentSettings.unlimitedDailyBudget` for `infinity`.
    public var dailyBudget: Int?
    /// `Users=`, `Groups=`: who may act for this manifest's identifiers (request, submit,
    /// trigger, run, cancel, cancel-request) without group `agentd`, and see their jobs'
    /// details (`ChangeAuthority`, `DetailVisibility`). Names, resolved when a peer asks: a
    /// user created later counts from then on.
    public var users: [String] = []
    public var groups: [String] = []
    /// `Description=`, `Icon=`, `DesktopEntry=`: the app its jobs' notifications name.
    public var app = AppIdentity()

    public init(permitted: [IdentifierPattern], backgroundModes: Set<JobKind>, dailyBudget: Int? = nil) {
        self.permitted = permitted
        self.backgroundModes = backgroundModes
        self.dailyBudget = dailyBudget
    }

    /// Whether a job or submission `id` of `kind` is allowed by this manifest.
    public func permits(_ id: Identifier, kind: JobKind) -> Bool {
        backgroundModes.contains(kind) && permitsIdentifier(id)
    }

    /// Whether some pattern matches `id`, whatever the kind.
    public func permitsIdentifier(_ id: Identifier) -> Bool {
        permitted.contains { $0.matches(id) }
    }

    /// Parses and validates a manifest file. With `namesCheckedBy` (the system agent, as root),
    /// a `Users=`/`Groups=` name the machine does not know is a warning: a typo grants nothing.
    public static func parse(_ bytes: [UInt8], path: String,
                             namesCheckedBy facts: (any SystemFacts)? = nil) -> ConfigParseResult<Manifest> {
        // As for job files: a line that is no assignment hides none of the file's other errors.
        let unit = UnitFileParser.parseKeepingGoing(bytes, path: path, expectedSection: "[Manifest]")
        guard let file = unit.file else { return .failure(unit.errors) }
        var diagnostics = unit.errors
        for section in file.sections where section.name != "Manifest" {
            diagnostics.append(ConfigDiagnostic(
                path: path, line: section.line, severity: .warning,
                message: "unknown section [\(TextBytes.shownName(section.name))], ignored "
                    + "(a manifest has one [Manifest] section)"))
        }
        guard let sectionLine = file.firstLine(of: "Manifest") else {
            // A broken `[Manifest` header has said so already.
            guard unit.errors.isEmpty else { return .failure(diagnostics) }
            diagnostics.append(ConfigDiagnostic(
                path: path,
                message: "has no [Manifest] section; a manifest needs [Manifest] with "
                    + "PermittedIdentifiers= and BackgroundModes="))
            return .failure(diagnostics)
        }
        var reader = KeyReader(
            path: path, assignments: file.entries(in: "Manifest").map(Assignment.init),
            scalarKeys: ["DailyBudget", "Description", "Icon", "DesktopEntry"],
            listKeys: ["PermittedIdentifiers", "BackgroundModes", "Users", "Groups"],
            place: "[Manifest]")
        // Same syntax and range as agentd.conf's key, so one value means the same in both files.
        let dailyBudget = reader.dailyBudget("DailyBudget")
        var patterns: [IdentifierPattern] = []
        var seen = Set<IdentifierPattern>()
        for (word, line) in reader.words("PermittedIdentifiers") {
            if let pattern = IdentifierPattern(rawValue: word) {
                if seen.insert(pattern).inserted { patterns.append(pattern) }
            } else {
                reader.error(line, "PermittedIdentifiers: \(TextBytes.quoted(word)) is not an "
                    + "identifier pattern: \(IdentifierPattern.problem(with: word) ?? "")")
            }
        }
        var modes = Set<JobKind>()
        for (word, line) in reader.words("BackgroundModes") {
            if let kind = JobKind(rawValue: word) {
                modes.insert(kind)
            } else {
                reader.error(line, "BackgroundModes: \(TextBytes.quoted(word)) is not a kind "
                    + "(\(JobKind.validNames))")
            }
        }
        let users = Self.names("Users", &reader, known: facts.map { facts in { facts.userExists($0) } })
        let groups = Self.names("Groups", &reader, known: facts.map { facts in { facts.groupExists($0) } })
        var app = AppIdentity(name: reader.scalar("Description")?.value.nonEmpty, icon: reader.scalar("Icon")?.value.nonEmpty)
        if let entry = reader.scalar("DesktopEntry"), !entry.value.isEmpty {
            if let problem = AppIdentity.desktopEntryProblem(entry.value) {
                reader.error(entry.line, "DesktopEntry: " + problem)
            } else {
                app.desktopEntry = entry.value
            }
        }
        if !reader.hasErrors && unit.errors.isEmpty {
            // At the empty assignment that cleared the list when there is one, else the section.
            if patterns.isEmpty {
                reader.warning(reader.resetLine("PermittedIdentifiers") ?? sectionLine, "PermittedIdentifiers= is empty, so this manifest "
                    + "permits nothing; list identifiers such as com.example.task or com.example.*")
            }
            if modes.isEmpty {
                reader.warning(reader.resetLine("BackgroundModes") ?? sectionLine, "BackgroundModes= is empty, so no kind of job is "
                    + "permitted; list some of \(JobKind.validNames)")
            }
        }
        diagnostics = JobDefinition.sortedByLine(diagnostics + reader.diagnostics)
        if reader.hasErrors || !unit.errors.isEmpty { return .failure(diagnostics) }
        var manifest = Manifest(permitted: patterns, backgroundModes: modes, dailyBudget: dailyBudget)
        manifest.users = users
        manifest.groups = groups
        manifest.app = app
        return ConfigParseResult(value: manifest, diagnostics: diagnostics)
    }

    /// User or group names (`Users=`, `Groups=`); one `known` does not know is kept (it may be
    /// created later) with a warning.
    private static func names(_ key: String, _ reader: inout KeyReader, known: ((String) -> Bool)?) -> [String] {
        let noun = key == "Users" ? "user" : "group"
        var names: [String] = []
        for (word, line) in reader.words(key) {
            if word.utf8.contains(where: { $0 == 0x3A || $0 == TextBytes.slash }) {
                reader.error(line, "\(key): \(TextBytes.quoted(word)) is not a \(noun) name")
            } else if !names.contains(word) {
                names.append(word)
                if let known, !known(word) {
                    reader.warning(line, "\(key): there is no \(noun) \(TextBytes.quoted(word)) on this machine, so "
                        + "it grants nothing until one is created (a typo? getent \(key == "Users" ? "passwd" : "group") lists them)")
                }
            }
        }
        return names
    }
}
