// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The environment a plugin starts with (DESIGN §5): cleared to PATH, LANG, the job's
/// `Environment=` and the `AGENTD_*` variables, plus `STATE_DIRECTORY`.
enum PluginEnvironment {
    static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    static func build(job: JobDefinition, run: LiveRun, stateDirectory: String, lang: String?,
                      socket: String? = nil) -> [String] {
        var values: [(String, String)] = [("PATH", defaultPath), ("LANG", lang ?? "C.UTF-8")]
        func set(_ name: String, _ value: String) {
            if let index = values.firstIndex(where: { $0.0 == name }) {
                values[index].1 = value
            } else {
                values.append((name, value))
            }
        }
        for variable in job.environment { set(variable.name, variable.value) }
        set("AGENTD_IDENTIFIER", run.identifier.rawValue)
        set("AGENTD_KIND", run.kind.rawValue)
        set("AGENTD_RUN_ID", run.id.description)
        set("AGENTD_REASON", run.reason.rawValue)
        if let deadline = run.deadline { set("AGENTD_DEADLINE", String(deadline)) }
        if let checkpoint = run.checkpoint { set("AGENTD_CHECKPOINT", checkpoint) }
        if let chained = run.chainedInput {
            set("AGENTD_PREVIOUS_RUN_ID", chained.previousRunID.description)
            // Absent, not empty, when the previous run printed no RESULT= (an empty one is a result).
            if let result = chained.previousResult { set("AGENTD_PREVIOUS_RESULT", result) }
        }
        set("STATE_DIRECTORY", stateDirectory)
        // The agent that launched it: a run acts for its own manifest's identifiers (DESIGN §5).
        if let socket { set("AGENTD_SOCKET", socket) }
        return values.map { "\($0.0)=\($0.1)" }
    }
}
