// SPDX-License-Identifier: Apache-2.0
/// One `Environment=` assignment handed to a plugin.
public struct EnvironmentVariable: Hashable, Sendable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Why `name` cannot be an environment variable name (`[A-Za-z_][A-Za-z0-9_]*`), or nil.
    public static func problem(withName name: String) -> String? {
        let bytes = name.utf8
        guard let first = bytes.first else { return "the name is empty" }
        let valid = !TextBytes.isDigit(first) && bytes.allSatisfy { byte in
            TextBytes.isDigit(byte) || byte == 0x5F || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
        if !valid {
            return "\(TextBytes.quoted(name)) is not a variable name "
                + "(letters, digits and _, not starting with a digit)"
        }
        if name.hasPrefix("AGENTD_") || name == "STATE_DIRECTORY" {
            return "\(TextBytes.quoted(name)) is set by the agent for every run; choose another name"
        }
        return nil
    }
}

/// Where a job file sets the keys other files' diagnostics point at.
struct JobLines: Hashable, Sendable {
    /// `Identifier=` (or the `[Job]` header when it is missing).
    var identifier: Int?
    /// `OnSuccess=`, for a refused chain cycle.
    var onSuccess: Int?
    /// The identifier the file names, when it is valid, even if the file has other errors: a
    /// file with errors is still listed under it.
    var identifierValue: Identifier?
    /// The plugin the file names (an absolute path), even if the file has errors: the agent
    /// watches it so that installing it or `chmod +x` takes effect by itself.
    var plugin: String?
}

/// A job: a task identifier bound to a plugin executable, with its scheduling constraints —
/// from `jobs.d/NAME.job` (`[Job]` section) or from a drop-in script `jobs.d/NAME`.
///
/// `Kind=` is optional and defaults to `processing`, as for drop-in scripts; `Identifier=` and
/// `Exec=` are required in `.job` files. Other defaults: `Interval=` none (drop-ins 1d),
/// `MaxRuntime=` by kind (refresh 30s, processing 10min, continued none; drop-ins 1h), `GracePeriod=5s`,
/// `ProgressTimeout=30s`, `MaxPause=1h`, `OnConditionLost=expire`, booleans `no`.
public struct JobDefinition: Hashable, Sendable {
    /// The settings, stored once: every copy of a definition (the registry's, the scheduler's,
    /// a launch order's) shares this box until one of them is changed (copy on write), so a job
    /// costs one set of settings however many components hold it.
    @usableFromInline var box: Box
    /// The settings most jobs leave at their defaults (user, retry, chain, environment, limits,
    /// priority, calendar): every definition that does shares one default box, and one that
    /// sets any of them gets a box of its own.
    @usableFromInline var rareBox: RareBox

    @inlinable public var identifier: Identifier {
        get { box.settings.identifier }
        set { uniqueBox().settings.identifier = newValue }
    }
    @inlinable public var kind: JobKind {
        get { box.settings.kind }
        set { uniqueBox().settings.kind = newValue }
    }
    /// argv; `exec[0]` is an absolute path.
    @inlinable public var exec: [String] {
        get { box.settings.exec }
        set { uniqueBox().settings.exec = newValue }
    }
    /// nil: the daemon's default user (agentd.conf `DefaultUser=`, or the agent's own user).
    @inlinable public var user: String? {
        get { rareBox.settings.user }
        set { if rareBox.settings.user != newValue { uniqueRareBox().settings.user = newValue } }
    }
    /// Minimum spacing between runs; nil = only when triggered or submitted.
    @inlinable public var interval: Duration? {
        get { box.settings.interval }
        set { uniqueBox().settings.interval = newValue }
    }
    /// nil = no time limit (progress-bound for continued jobs).
    @inlinable public var maxRuntime: Duration? {
        get { box.settings.maxRuntime }
        set { uniqueBox().settings.maxRuntime = newValue }
    }
    @inlinable public var gracePeriod: Duration {
        get { box.settings.gracePeriod }
        set { uniqueBox().settings.gracePeriod = newValue }
    }
    @inlinable public var requiresExternalPower: Bool {
        get { box.settings.requiresExternalPower }
        set { uniqueBox().settings.requiresExternalPower = newValue }
    }
    /// `RequiresNetwork=yes` or `unmetered`: a default route.
    @inlinable public var requiresNetwork: Bool {
        get { box.settings.requiresNetwork }
        set { uniqueBox().settings.requiresNetwork = newValue }
    }
    /// `RequiresNetwork=unmetered`: besides the route, a network that is not metered.
    @inlinable public var requiresUnmeteredNetwork: Bool {
        get { rareBox.settings.requiresUnmeteredNetwork }
        set { if rareBox.settings.requiresUnmeteredNetwork != newValue { uniqueRareBox().settings.requiresUnmeteredNetwork = newValue } }
    }
    @inlinable public var requiresIdle: Bool {
        get { box.settings.requiresIdle }
        set { uniqueBox().settings.requiresIdle = newValue }
    }
    @inlinable public var progressTimeout: Duration {
        get { box.settings.progressTimeout }
        set { uniqueBox().settings.progressTimeout = newValue }
    }
    /// Special resources the job needs, e.g. `gpu`.
    @inlinable public var resources: [String] {
        get { rareBox.settings.resources }
        set { if rareBox.settings.resources != newValue { uniqueRareBox().settings.resources = newValue } }
    }
    @inlinable public var retry: RetryPolicy? {
        get { rareBox.settings.retry }
        set { if rareBox.settings.retry != newValue { uniqueRareBox().settings.retry = newValue } }
    }
    @inlinable public var onSuccess: Identifier? {
        get { rareBox.settings.onSuccess }
        set { if rareBox.settings.onSuccess != newValue { uniqueRareBox().settings.onSuccess = newValue } }
    }
    @inlinable public var onConditionLost: ConditionLostAction {
        get { rareBox.settings.onConditionLost }
        set { if rareBox.settings.onConditionLost != newValue { uniqueRareBox().settings.onConditionLost = newValue } }
    }
    @inlinable public var maxPause: Duration {
        get { rareBox.settings.maxPause }
        set { if rareBox.settings.maxPause != newValue { uniqueRareBox().settings.maxPause = newValue } }
    }
    @inlinable public var environment: [EnvironmentVariable] {
        get { rareBox.settings.environment }
        set { if rareBox.settings.environment != newValue { uniqueRareBox().settings.environment = newValue } }
    }
    /// `TasksMax=`, `MemoryMax=`, `MemoryHigh=`.
    @inlinable public var limits: RunLimits {
        get { rareBox.settings.limits }
        set { if rareBox.settings.limits != newValue { uniqueRareBox().settings.limits = newValue } }
    }
    /// `Nice=`, `IOSchedulingClass=`, `IOSchedulingPriority=`, `CPUWeight=`.
    @inlinable public var priority: RunPriority {
        get { rareBox.settings.priority }
        set { if rareBox.settings.priority != newValue { uniqueRareBox().settings.priority = newValue } }
    }
    @inlinable public var isDropInScript: Bool {
        get { box.settings.isDropInScript }
        set { uniqueBox().settings.isDropInScript = newValue }
    }
    // Wall-clock scheduling (DESIGN §3): read by `readCalendarSettings`.
    /// `Schedule=`: the calendar earliest begin; nil = none.
    @inlinable public var schedule: CalendarEvent? {
        get { rareBox.settings.schedule }
        set { if rareBox.settings.schedule != newValue { uniqueRareBox().settings.schedule = newValue } }
    }
    /// `Window=`: local times of day the job may start in; empty = any time.
    @inlinable public var windows: [TimeWindow] {
        get { rareBox.settings.windows }
        set { if rareBox.settings.windows != newValue { uniqueRareBox().settings.windows = newValue } }
    }
    /// `RandomizedDelay=`: the span of the stable per-job offset added to each earliest begin.
    @inlinable public var randomizedDelay: Duration {
        get { rareBox.settings.randomizedDelay }
        set { if rareBox.settings.randomizedDelay != newValue { uniqueRareBox().settings.randomizedDelay = newValue } }
    }
    /// `CatchUp=`: a `Schedule=` slot missed while the agent was down or asleep runs once.
    @inlinable public var catchUp: Bool {
        get { rareBox.settings.catchUp }
        set { if rareBox.settings.catchUp != newValue { uniqueRareBox().settings.catchUp = newValue } }
    }
    /// `Notify=`: a continued run of the per-user agent is shown in a desktop notification.
    @inlinable public var notify: Bool {
        get { rareBox.settings.notify }
        set { if rareBox.settings.notify != newValue { uniqueRareBox().settings.notify = newValue } }
    }

    public static let defaultGracePeriod: Duration = .seconds(5)
    public static let defaultProgressTimeout: Duration = .seconds(30)
    public static let defaultMaxPause: Duration = .seconds(3600)
    /// `Interval=` of a drop-in script that sets none: like `/etc/cron.daily`.
    public static let dropInDefaultInterval: Duration = .seconds(86_400)
    /// `MaxRuntime=` of a drop-in script that sets none: cron scripts sleep on their own
    /// (apt-compat waits up to 30 min before it starts), so the kind's 10 min would cut them off.
    public static let dropInDefaultMaxRuntime: Duration = .seconds(3600)

    /// The `MaxRuntime=` default: by kind, and 1h for a drop-in script of its default kind,
    /// processing (one that chose refresh keeps refresh's 30 s, continued stays progress-bound).
    public static func defaultMaxRuntime(kind: JobKind, isDropInScript: Bool) -> Duration? {
        isDropInScript && kind == .processing ? dropInDefaultMaxRuntime : kind.defaultMaxRuntime
    }
    /// Names `Resources=` accepts. Whether the machine has them is decided at run time.
    public static let knownResources: [String] = ["gpu"]

    /// A definition with every optional setting at its default.
    public init(identifier: Identifier, kind: JobKind = .processing, exec: [String],
                isDropInScript: Bool = false)
    {
        box = Box(JobDefinitionSettings(identifier: identifier, kind: kind, exec: exec,
                                        isDropInScript: isDropInScript))
        rareBox = RareBox.defaults
    }

    static let scalarKeys = [
        "Identifier", "Kind", "Exec", "User", "Interval", "MaxRuntime", "GracePeriod",
        "RequiresExternalPower", "RequiresNetwork", "RequiresIdle", "ProgressTimeout", "Retry",
        "OnSuccess", "OnConditionLost", "MaxPause",
        "Schedule", "RandomizedDelay", "CatchUp", "Notify",
    ] + RunLimits.keys + RunPriority.keys
    static let listKeys = [
        "Resources", "Environment",
        "Window",
    ]

    /// Parses and validates a `jobs.d/NAME.job` file. The file's own ownership is checked by
    /// `ConfigCheck`; this checks the plugin named by `Exec=` and `User=` through `facts`.
    public static func parse(_ bytes: [UInt8], path: String, context: ConfigContext,
                             facts: some SystemFacts) -> ConfigParseResult<JobDefinition>
    {
        parseDetailed(bytes, path: path, context: context, facts: facts).result
    }

    static func parseDetailed(_ bytes: [UInt8], path: String, context: ConfigContext,
                              facts: some SystemFacts)
        -> (result: ConfigParseResult<JobDefinition>, lines: JobLines)
    {
        let unit = UnitFileParser.parse(bytes, path: path, expectedSection: "[Job]")
        guard let file = unit.value else { return (.failure(unit.diagnostics), JobLines()) }
        var unknownSections: [ConfigDiagnostic] = []
        for section in file.sections where section.name != "Job" {
            unknownSections.append(ConfigDiagnostic(
                path: path, line: section.line, severity: .warning,
                message: "unknown section [\(TextBytes.shownName(section.name))], ignored (a job file has one [Job] section)"))
        }
        guard let jobLine = file.firstLine(of: "Job") else {
            let missing = ConfigDiagnostic(
                path: path, line: nil,
                message: "has no [Job] section; a job file needs [Job] with at least "
                    + "Identifier= and Exec=")
            return (.failure(unknownSections + [missing]), JobLines())
        }
        var reader = KeyReader(
            path: path, assignments: file.entries(in: "Job").map(Assignment.init),
            scalarKeys: scalarKeys, listKeys: listKeys, place: "[Job]")

        var identifier: Identifier?
        let identifierLine = reader.assignment("Identifier")?.line ?? jobLine
        if let assignment = reader.scalar("Identifier") {
            if let id = Identifier(rawValue: assignment.value) {
                identifier = id
            } else {
                reader.error(assignment.line, "Identifier: \(TextBytes.quoted(assignment.value)) is "
                    + "not an identifier: \(Identifier.problem(with: assignment.value) ?? "")")
            }
        } else if let empty = reader.assignment("Identifier") {
            reader.error(empty.line, "Identifier: is empty; write an identifier such as "
                + "com.example.NAME (\(Identifier.rule))")
        } else {
            reader.error(jobLine, "Identifier= is missing; add Identifier=com.example.NAME to [Job]")
        }

        var exec: [String] = []
        if let assignment = reader.scalar("Exec") {
            switch ExecLine.split(assignment.value) {
            case .failure(let error):
                reader.error(assignment.line, "Exec: \(error)")
            case .success(let argv):
                if let program = argv.first {
                    if program.utf8.first == TextBytes.slash {
                        exec = argv
                        let status = facts.plugin(at: program)
                        if let problem = OwnershipRule.pluginProblem(
                            status, path: program, agentUID: context.agentUID,
                            agentUserName: context.agentUserName)
                        {
                            reader.error(assignment.line, "Exec: \(TextBytes.shellQuoted(program)) \(problem)")
                        }
                    } else {
                        reader.error(assignment.line, "Exec: \(TextBytes.quoted(program)) is not an "
                            + "absolute path (name the plugin by its full path, e.g. "
                            + "/usr/lib/agentd/plugins/NAME)")
                    }
                } else {
                    reader.error(assignment.line, "Exec: has no command; name the plugin by its "
                        + "absolute path, e.g. Exec=/usr/lib/agentd/plugins/NAME")
                }
            }
        } else if let empty = reader.assignment("Exec") {
            reader.error(empty.line, "Exec: is empty; name the plugin by its absolute path, "
                + "e.g. Exec=/usr/lib/agentd/plugins/NAME")
        } else {
            reader.error(jobLine, "Exec= is missing; add Exec=/absolute/path/to/plugin to [Job]")
        }

        var definition = JobDefinition(
            identifier: identifier ?? Identifier(unchecked: "invalid"), exec: exec)
        readSettings(&reader, into: &definition, context: context, facts: facts)
        let diagnostics = sortedByLine(unknownSections + reader.diagnostics)
        let lines = JobLines(identifier: identifierLine, onSuccess: reader.assignment("OnSuccess")?.line,
                             identifierValue: identifier, plugin: exec.first)
        if reader.hasErrors || identifier == nil {
            return (.failure(diagnostics), lines)
        }
        return (ConfigParseResult(value: definition, diagnostics: diagnostics), lines)
    }

    /// Reads every key shared by `.job` files and drop-in headers (all but `Identifier=` and
    /// `Exec=`) into `definition`, whose kind-dependent defaults are recomputed here.
    static func readSettings(_ reader: inout KeyReader, into definition: inout JobDefinition,
                             context: ConfigContext, facts: some SystemFacts)
    {
        let kind: JobKind = reader.keyword("Kind", default: .processing, noun: "a kind")
        definition.kind = kind

        if let assignment = reader.scalar("User") {
            let name = assignment.value
            if name.utf8.contains(where: { TextBytes.isWhitespace($0) || $0 == 0x3A || $0 == TextBytes.slash }) {
                reader.error(assignment.line, "User: \(TextBytes.quoted(name)) is not a user name")
            } else if !context.privileged {
                if name != context.agentUserName && name != String(context.agentUID) {
                    reader.error(assignment.line, "User: \(TextBytes.quoted(name)) cannot be used: the "
                        + "agent runs unprivileged as \(context.agentUserName) and can run jobs only "
                        + "as that user; remove User= or run agentd as root")
                } else {
                    definition.user = name
                }
            } else if !facts.userExists(name) {
                reader.error(assignment.line, "User: \(TextBytes.quoted(name)) does not exist; create "
                    + "the user or remove User= to run the job as DefaultUser")
            } else {
                definition.user = name
            }
        }

        let defaultInterval = definition.isDropInScript ? dropInDefaultInterval : nil
        let interval = reader.optionalSpan("Interval", default: defaultInterval)
        if kind == .continued, let assignment = reader.scalar("Interval"),
            TextBytes.asciiLowercased(assignment.value) != "none"
        {
            reader.warning(assignment.line, "Interval: ignored for Kind=continued, which starts "
                + "only through agentctl submit")
            definition.interval = nil
        } else {
            definition.interval = kind == .continued ? nil : interval
        }
        definition.maxRuntime = reader.optionalSpan(
            "MaxRuntime", default: defaultMaxRuntime(kind: kind, isDropInScript: definition.isDropInScript))
        definition.gracePeriod = reader.span("GracePeriod", default: defaultGracePeriod, allowZero: true)
        definition.requiresExternalPower = reader.bool("RequiresExternalPower", default: false)
        let network = reader.networkRequirement("RequiresNetwork")
        definition.requiresNetwork = network != .no
        definition.requiresUnmeteredNetwork = network == .unmetered
        definition.requiresIdle = reader.bool("RequiresIdle", default: false)
        definition.notify = reader.bool("Notify", default: true)
        definition.progressTimeout = reader.span(
            "ProgressTimeout", default: defaultProgressTimeout, allowZero: false)
        definition.maxPause = reader.span("MaxPause", default: defaultMaxPause, allowZero: true)
        definition.onConditionLost = reader.keyword(
            "OnConditionLost", default: ConditionLostAction.expire, noun: "an action")

        var resources: [String] = []
        for (word, line) in reader.words("Resources") {
            if !knownResources.contains(word) {
                reader.error(line, "Resources: \(TextBytes.quoted(word)) is not a resource "
                    + "(\(knownResources.joined(separator: ", ")))")
            } else if !resources.contains(word) {
                resources.append(word)
            }
        }
        definition.resources = resources

        if let assignment = reader.scalar("Retry") {
            switch RetryPolicy.parse(assignment.value) {
            case .success(let policy): definition.retry = policy
            case .failure(let error): reader.error(assignment.line, "Retry: \(error.message)")
            }
        }

        if let assignment = reader.scalar("OnSuccess") {
            if let next = Identifier(rawValue: assignment.value) {
                if next == definition.identifier {
                    reader.error(assignment.line, "OnSuccess: a job cannot chain to itself "
                        + "(\(next)); name another job's identifier")
                } else {
                    definition.onSuccess = next
                }
            } else {
                reader.error(assignment.line, "OnSuccess: \(TextBytes.quoted(assignment.value)) is not "
                    + "an identifier: \(Identifier.problem(with: assignment.value) ?? "")")
            }
        }

        var environment: [EnvironmentVariable] = []
        for assignment in reader.list("Environment") {
            let words: [String]
            if assignment.isSingleItem {
                words = [assignment.value]
            } else {
                switch ExecLine.tokenize(assignment.value) {
                case .success(let split): words = split
                case .failure(let error):
                    reader.error(assignment.line, "Environment: \(error)")
                    continue
                }
            }
            for word in words {
                guard let equals = word.utf8.firstIndex(of: TextBytes.equals) else {
                    reader.error(assignment.line, "Environment: \(TextBytes.quoted(word)) is not a "
                        + "NAME=VALUE assignment")
                    continue
                }
                let name = String(word[..<equals])
                let value = String(word[word.utf8.index(after: equals)...])
                if let problem = EnvironmentVariable.problem(withName: name) {
                    reader.error(assignment.line, "Environment: \(problem)")
                    continue
                }
                // As in systemd, a later assignment of the same name replaces the earlier one.
                if let existing = environment.firstIndex(where: { $0.name == name }) {
                    environment[existing].value = value
                } else {
                    environment.append(EnvironmentVariable(name: name, value: value))
                }
            }
        }
        definition.environment = environment
        definition.limits = RunLimits.read(&reader)
        definition.priority = RunPriority.read(&reader)
        readCalendarSettings(&reader, into: &definition, zones: context.zones)
    }

    /// Diagnostics in line order (whole-file ones first), keeping discovery order within a line.
    static func sortedByLine(_ diagnostics: [ConfigDiagnostic]) -> [ConfigDiagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let la = a.element.line ?? 0, lb = b.element.line ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }.map(\.element)
    }
}
