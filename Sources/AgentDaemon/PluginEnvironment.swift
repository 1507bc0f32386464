// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The environment a plugin starts with (DESIGN §5): cleared to PATH, LANG, and HOME, USER,
/// LOGNAME and SHELL from the passwd entry of the run's user (as systemd sets them with
/// `User=`: gpg, git and `su -`-style scripts need them), then the job's `Environment=`, then
/// its `EnvironmentFile=`s (which override `Environment=`, as in systemd.exec(5)), then the
/// `AGENTD_*` variables and `STATE_DIRECTORY`, which nothing overrides.
enum PluginEnvironment {
    static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// Who the run is, as its environment says.
    struct Account {
        var name: String
        var home: String
        var shell: String
    }

    static func build(job: JobDefinition, run: LiveRun, stateDirectory: String, lang: String?,
                      account: Account, fileVariables: [EnvironmentVariable] = [],
                      previousOutput: String? = nil, socket: String? = nil) -> [String] {
        var values = EnvironmentAssignments()
        func set(_ name: String, _ value: String) { values.assign(name, value) }
        set("PATH", defaultPath)
        set("LANG", lang ?? "C.UTF-8")
        set("HOME", account.home)
        set("USER", account.name)
        set("LOGNAME", account.name)
        set("SHELL", account.shell)
        for variable in job.environment { set(variable.name, variable.value) }
        for variable in fileVariables { set(variable.name, variable.value) }
        set("AGENTD_IDENTIFIER", run.identifier.rawValue)
        set("AGENTD_KIND", run.kind.rawValue)
        set("AGENTD_RUN_ID", run.id.description)
        set("AGENTD_REASON", run.reason.rawValue)
        if let deadline = run.deadline { set("AGENTD_DEADLINE", String(deadline)) }
        if let checkpoint = run.checkpoint { set("AGENTD_CHECKPOINT", checkpoint) }
        // A continued run's title and subtitle as submitted (or as its last command left them):
        // what BGContinuedProcessingTask.title and subtitle start from.
        if let title = run.title { set("AGENTD_TITLE", title) }
        if let subtitle = run.subtitle { set("AGENTD_SUBTITLE", subtitle) }
        if let chained = run.chainedInput {
            set("AGENTD_PREVIOUS_RUN_ID", chained.previousRunID.description)
            // Absent, not empty, when the previous run printed no RESULT= (an empty one is a result).
            if let result = chained.previousResult { set("AGENTD_PREVIOUS_RESULT", result) }
            if let stop = chained.previousStopReason { set("AGENTD_PREVIOUS_STOP_REASON", stop.description) }
            if let previousOutput { set("AGENTD_PREVIOUS_OUTPUT", previousOutput) }
        }
        set("STATE_DIRECTORY", stateDirectory)
        // The agent that launched it: a run acts for its own manifest's identifiers (DESIGN §5).
        if let socket { set("AGENTD_SOCKET", socket) }
        return values.variables.map { "\($0.name)=\($0.value)" }
    }

    /// `Exec=`'s `$VAR` and `${VAR}` expanded from the run's environment (`KEY=VALUE` strings),
    /// as systemd.service(5) expands them (``ExecExpansion``).
    static func expand(_ argv: [String], in environment: [String]) -> [String] {
        guard argv.dropFirst().contains(where: { $0.utf8.contains(0x24) }) else { return argv }
        var table: [String: String] = [:]
        for entry in environment {
            guard let equals = entry.utf8.firstIndex(of: 0x3D) else { continue }
            table[String(entry[..<equals])] = String(entry[entry.utf8.index(after: equals)...])
        }
        return ExecExpansion.expand(argv, environment: table)
    }
}
