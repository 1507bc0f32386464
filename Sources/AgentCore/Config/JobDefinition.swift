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
/// `MaxRuntime=` by kind (refresh 30s, processing 10min, continued and drop-ins none), `GracePeriod=5s`,
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
    /// `GracePeriod=infinity` (systemd's `TimeoutStopSec=infinity`), `MaxPause=infinity`: a year
    /// stands for never.
    public static let never: Duration = .seconds(365 * 86_400)
    public static let defaultProgressTimeout: Duration = .seconds(30)
    public static let defaultMaxPause: Duration = .seconds(3600)
    /// `Interval=` of a drop-in script that sets none: like `/etc/cron.daily`.
    public static let dropInDefaultInterval: Duration = .seconds(86_400)

    /// The `MaxRuntime=` default: by kind; none for a drop-in script of its default kind,
    /// processing, since run-parts imposes no limit (one that chose refresh keeps refresh's 30 s).
    public static func defaultMaxRuntime(kind: JobKind, isDropInScript: Bool) -> Duration? {
        isDropInScript && kind == .processing ? nil : kind.defaultMaxRuntime
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

    static var scalarKeys: [String] { JobKeyTable.scalarKeys }
    static var listKeys: [String] { JobKeyTable.listKeys }

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
        // A structural error (a line that is no assignment) does not hide the file's other
        // errors or its identifier: the rest is read on, and the file refused with them all.
        let unit = UnitFileParser.parseKeepingGoing(bytes, path: path, expectedSection: "[Job]")
        guard let file = unit.file else { return (.failure(unit.errors), JobLines()) }
        var fileProblems: [ConfigDiagnostic] = unit.errors
        for section in file.sections where section.name != "Job" {
            fileProblems.append(ConfigDiagnostic(
                path: path, line: section.line, severity: .warning,
                message: "unknown section [\(TextBytes.shownName(section.name))], ignored (a job file has one [Job] section)"))
        }
        guard let jobLine = file.firstLine(of: "Job") else {
            let missing = ConfigDiagnostic(
                path: path, line: nil,
                message: "has no [Job] section; a job file needs [Job] with at least "
                    + "Identifier= and Exec=")
            // A broken `[Job` header has said so already.
            return (.failure(fileProblems + (unit.errors.isEmpty ? [missing] : [])), JobLines())
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

        var definition = JobDefinition(
            identifier: identifier ?? Identifier(unchecked: "invalid"), exec: [])
        readSettings(&reader, into: &definition, context: context, facts: facts, sectionLine: jobLine)
        let exec = definition.exec
        let diagnostics = sortedByLine(fileProblems + reader.diagnostics)
        let lines = JobLines(identifier: identifierLine, onSuccess: reader.assignment("OnSuccess")?.line,
                             identifierValue: identifier, plugin: exec.first)
        if reader.hasErrors || identifier == nil || !unit.errors.isEmpty {
            return (.failure(diagnostics), lines)
        }
        return (ConfigParseResult(value: definition, diagnostics: diagnostics), lines)
    }

    /// Reads every key of `JobKeyTable` that `definition`'s file may set (a drop-in header
    /// neither `Identifier=` nor `Exec=`), in table order, into `definition`; a key the agent
    /// does not act on yet gets its "not enforced yet" warning here.
    static func readSettings(_ reader: inout KeyReader, into definition: inout JobDefinition,
                             context: ConfigContext, facts: some SystemFacts, sectionLine: Int? = nil)
    {
        var input = JobKeyInput(reader: reader, definition: definition, context: context, facts: facts,
                                sectionLine: sectionLine)
        let dropIn = definition.isDropInScript
        for key in JobKeyTable.rows where key.inDropInHeader || !dropIn {
            key.read(&input)
            if !key.enforced, key.isSet(in: input.reader) {
                input.reader.warning(key.line(in: input.reader), "\(key.name): is not enforced yet: "
                    + "this agent reads it but runs the job as if it were not set")
            }
        }
        warnAboutWakeSystem(&input)
        warnAboutPluginAccess(&input)
        warnAboutUnenforceableSandbox(&input)
        reader = input.reader
        definition = input.definition
    }

    /// Diagnostics in line order (whole-file ones first), keeping discovery order within a line.
    static func sortedByLine(_ diagnostics: [ConfigDiagnostic]) -> [ConfigDiagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let la = a.element.line ?? 0, lb = b.element.line ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }.map(\.element)
    }
}

extension JobDefinition {
    /// `WakeSystem=yes` wakes the machine only for a `Schedule=` slot, and only where the kernel
    /// gives the agent an alarm timer: `check` says so rather than let the job sleep through.
    static func warnAboutWakeSystem(_ input: inout JobKeyInput) {
        guard input.definition.extra.wakeSystem, let line = input.reader.assignment("WakeSystem")?.line else { return }
        if input.definition.schedule == nil {
            input.reader.warning(line, "WakeSystem: only a Schedule= slot wakes the machine, and this job has no "
                + "Schedule=; add one or drop WakeSystem=")
        } else if let refusal = input.facts.wakeAlarmRefusal() {
            input.reader.warning(line, "WakeSystem: this machine cannot wake itself (\(refusal)); the job runs at "
                + "its slot only while the machine is awake")
        }
    }
}
