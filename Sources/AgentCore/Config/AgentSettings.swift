// SPDX-License-Identifier: Apache-2.0
/// `agentd.conf`: the agent's own settings. Every key is optional; an absent file means
/// `AgentSettings.defaults`.
/// ```
/// [Agent]
/// DefaultUser=nobody
/// MaxConcurrent=4
/// DailyBudget=48
/// TriggerSpacing=15min
/// CatchUpSpread=5min
/// BatteryLow=20%
/// BatteryCritical=5%
/// Deny=
/// MetricsFile=/var/lib/prometheus/node-exporter/agentd.prom
/// MetricsInterval=15s
/// [Thermal]
/// FairMargin=10
/// CriticalMargin=5
/// ```
public struct AgentSettings: Hashable, Sendable {
    /// `User=` for jobs naming none. nil when not set: the daemon then uses `nobody` when
    /// privileged and its own user when not (see `resolvedDefaultUser`).
    public var defaultUser: String?
    /// Runs at once, all kinds.
    public var maxConcurrent: Int
    /// Discretionary launches per day, refilled at local midnight; `unlimitedDailyBudget` for
    /// `DailyBudget=infinity`.
    public var dailyBudget: Int
    /// At most one triggered launch per identifier per this span.
    public var triggerSpacing: Duration
    /// Overdue jobs after downtime are spread over this span.
    public var catchUpSpread: Duration
    /// Battery percentages below which discretionary / all work stops (while discharging).
    public var batteryLow: Int
    public var batteryCritical: Int
    /// Identifiers (wildcards allowed) an administrator forbids: "restricted".
    public var deny: [IdentifierPattern]
    /// °C below the lowest passive/hot trip point that counts as thermal "fair".
    public var thermalFairMargin: Int
    /// °C below the critical trip point that counts as thermal "critical".
    public var thermalCriticalMargin: Int
    /// `MetricsFile=`: where the agent keeps its metrics in the Prometheus text format (for
    /// node_exporter's textfile collector); nil: no file.
    public var metricsFile: String? = nil
    /// `MetricsInterval=`: the metrics file is rewritten at most this often, and only on change.
    public var metricsInterval: Duration = .seconds(15)

    public init(defaultUser: String? = nil, maxConcurrent: Int = 4, dailyBudget: Int = 48,
                triggerSpacing: Duration = .seconds(900), catchUpSpread: Duration = .seconds(300),
                batteryLow: Int = 20, batteryCritical: Int = 5, deny: [IdentifierPattern] = [],
                thermalFairMargin: Int = 10, thermalCriticalMargin: Int = 5)
    {
        self.defaultUser = defaultUser
        self.maxConcurrent = maxConcurrent
        self.dailyBudget = dailyBudget
        self.triggerSpacing = triggerSpacing
        self.catchUpSpread = catchUpSpread
        self.batteryLow = batteryLow
        self.batteryCritical = batteryCritical
        self.deny = deny
        self.thermalFairMargin = thermalFairMargin
        self.thermalCriticalMargin = thermalCriticalMargin
    }

    public static let defaults = AgentSettings()

    /// The user a job without `User=` runs as.
    public func resolvedDefaultUser(privileged: Bool, agentUserName: String) -> String {
        guard privileged else { return agentUserName }
        return defaultUser ?? "nobody"
    }

    /// Whether `Deny=` forbids `id`.
    public func denies(_ id: Identifier) -> Bool {
        deny.contains { $0.matches(id) }
    }

    static let maxConcurrentRange = 1...1024
    static let dailyBudgetRange = 0...100_000
    /// `DailyBudget=infinity`: a count no day reaches, so the scheduler's arithmetic
    /// (`limit - spent`) needs no case of its own.
    public static let unlimitedDailyBudget = Int.max
    static let marginRange = 0...100

    /// Parses and validates `agentd.conf`. `DefaultUser=` is checked through `facts` when the
    /// agent is privileged; unprivileged, a `DefaultUser=` other than the agent's own user is
    /// ignored with a warning (every job runs as the agent's user then).
    public static func parse(_ bytes: [UInt8], path: String, context: ConfigContext,
                             facts: some SystemFacts) -> ConfigParseResult<AgentSettings>
    {
        // As for job files: a line that is no assignment hides none of the file's other errors.
        let unit = UnitFileParser.parseKeepingGoing(bytes, path: path, expectedSection: "[Agent]")
        guard let file = unit.file else { return .failure(unit.errors) }
        var diagnostics = unit.errors
        for section in file.sections where section.name != "Agent" && section.name != "Thermal" {
            diagnostics.append(ConfigDiagnostic(
                path: path, line: section.line, severity: .warning,
                message: "unknown section [\(TextBytes.shownName(section.name))], ignored "
                    + "(agentd.conf has [Agent] and [Thermal])"))
        }
        var agent = KeyReader(
            path: path, assignments: file.entries(in: "Agent").map(Assignment.init),
            scalarKeys: ["DefaultUser", "MaxConcurrent", "DailyBudget", "TriggerSpacing",
                         "CatchUpSpread", "BatteryLow", "BatteryCritical", "MetricsFile", "MetricsInterval"],
            listKeys: ["Deny"], place: "[Agent]")
        var thermal = KeyReader(
            path: path, assignments: file.entries(in: "Thermal").map(Assignment.init),
            scalarKeys: ["FairMargin", "CriticalMargin"], listKeys: [], place: "[Thermal]")

        var settings = AgentSettings.defaults
        if let assignment = agent.scalar("DefaultUser") {
            let name = assignment.value
            if name.utf8.contains(where: { TextBytes.isWhitespace($0) || $0 == 0x3A || $0 == TextBytes.slash }) {
                agent.error(assignment.line, "DefaultUser: \(TextBytes.quoted(name)) is not a user name")
            } else if !context.privileged {
                if name == context.agentUserName {
                    settings.defaultUser = name
                } else {
                    agent.warning(assignment.line, "DefaultUser: ignored: the agent runs "
                        + "unprivileged, so every job runs as \(context.agentUserName)")
                }
            } else if facts.userExists(name) {
                settings.defaultUser = name
            } else {
                agent.error(assignment.line, "DefaultUser: \(TextBytes.quoted(name)) does not exist; "
                    + "create the user or remove DefaultUser= to use nobody")
            }
        }
        settings.maxConcurrent = agent.integer("MaxConcurrent", default: 4, range: maxConcurrentRange)
        settings.dailyBudget = agent.dailyBudget("DailyBudget") ?? 48
        settings.triggerSpacing = agent.span(
            "TriggerSpacing", default: defaults.triggerSpacing, allowZero: true)
        settings.catchUpSpread = agent.span(
            "CatchUpSpread", default: defaults.catchUpSpread, allowZero: true)
        settings.batteryLow = agent.integer("BatteryLow", default: 20, range: 0...100, percent: true)
        settings.batteryCritical = agent.integer(
            "BatteryCritical", default: 5, range: 0...100, percent: true)
        if settings.batteryCritical > settings.batteryLow {
            // Blame the key the administrator wrote; a default cannot be wrong on its own.
            if let assignment = agent.scalar("BatteryCritical") {
                agent.error(assignment.line, "BatteryCritical: \(settings.batteryCritical)% is above "
                    + "BatteryLow (\(settings.batteryLow)%); it must not be above it")
            } else if let assignment = agent.scalar("BatteryLow") {
                agent.error(assignment.line, "BatteryLow: \(settings.batteryLow)% is below "
                    + "BatteryCritical (\(settings.batteryCritical)%); lower BatteryCritical= too")
            }
        }
        var deny: [IdentifierPattern] = []
        for (word, line) in agent.words("Deny") {
            if let pattern = IdentifierPattern(rawValue: word) {
                if !deny.contains(pattern) { deny.append(pattern) }
            } else {
                agent.error(line, "Deny: \(TextBytes.quoted(word)) is not an identifier pattern: "
                    + "\(IdentifierPattern.problem(with: word) ?? "")")
            }
        }
        settings.deny = deny
        settings.metricsFile = metricsFile(&agent)
        settings.metricsInterval = metricsInterval(&agent)
        settings.thermalFairMargin = thermal.integer("FairMargin", default: 10, range: marginRange)
        settings.thermalCriticalMargin = thermal.integer(
            "CriticalMargin", default: 5, range: marginRange)

        diagnostics = JobDefinition.sortedByLine(diagnostics + agent.diagnostics + thermal.diagnostics)
        if agent.hasErrors || thermal.hasErrors || !unit.errors.isEmpty { return .failure(diagnostics) }
        return ConfigParseResult(value: settings, diagnostics: diagnostics)
    }
}

extension AgentSettings {
    static let shortestMetricsInterval: Duration = .seconds(1)

    /// `MetricsFile=`: an absolute path; empty means no file.
    static func metricsFile(_ agent: inout KeyReader) -> String? {
        guard let assignment = agent.scalar("MetricsFile"), !assignment.value.isEmpty else { return nil }
        let path = assignment.value
        guard path.utf8.first == TextBytes.slash, path.utf8.last != TextBytes.slash else {
            agent.error(assignment.line, "MetricsFile: \(TextBytes.quoted(path)) is not an absolute file path "
                + "(e.g. MetricsFile=/var/lib/prometheus/node-exporter/agentd.prom)")
            return nil
        }
        return path
    }

    /// `MetricsInterval=`: at least 1 s.
    static func metricsInterval(_ agent: inout KeyReader) -> Duration {
        let interval = agent.span("MetricsInterval", default: defaults.metricsInterval, allowZero: false)
        if interval < shortestMetricsInterval, let assignment = agent.scalar("MetricsInterval") {
            agent.error(assignment.line, "MetricsInterval: \(TextBytes.quoted(assignment.value)) is shorter "
                + "than 1s; use 1s or more (the default is 15s)")
            return defaults.metricsInterval
        }
        return interval
    }
}
