import AgentProtocol

/// `agentctl status`: the agent, its config and its work at a glance.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "status", abstract: "Show the agent, its config errors, running and waiting work.",
        examples: ["agentctl status", "agentctl status --json | jq .diagnostics"],
        options: [jsonOption],
        run: { parsed, context in
            let response = try context.request(ControlRequest(command: .status))
            guard let status = response.status else {
                throw CommandFailure(exitStatus: 1, message: "agentd sent no status (is agentctl newer than agentd?)")
            }
            context.out(parsed.flag("json") ? try MessageCoding.encodePretty(status) : render(status, context: context))
            return 0
        })

    static func render(_ status: StatusReport, context: CommandContext) -> String {
        let errors = status.diagnostics.filter { $0.severity == .error }
        let warnings = status.diagnostics.filter { $0.severity == .warning }
        var lines = [
            "agentd \(status.version), up \(HumanTime.span(seconds: status.uptimeSeconds)) (pid \(status.pid))",
            "config:   \(status.configDirectory): \(status.manifestCount) manifests, \(status.jobCount) jobs, \(errors.count) errors, \(warnings.count) warnings",
            "state:    \(status.stateDirectory)",
            "socket:   \(status.socketPath)",
        ]
        if let left = status.budgetLeft, let budget = status.dailyBudget {
            lines.append("budget:   \(left) of \(budget) discretionary launches left today" + (status.paused == true ? "; PAUSED (agentctl resume)" : ""))
        }
        if let problem = status.stateError {
            lines.append(Style.error("state error: \(problem)", context))
        }
        if !status.diagnostics.isEmpty {
            lines.append("")
            lines.append("Config problems:")
            for diagnostic in status.diagnostics {
                let text = "  " + diagnostic.description
                lines.append(diagnostic.severity == .error ? Style.error(text, context) : Style.warning(text, context))
            }
        }
        lines.append("")
        if status.running.isEmpty {
            lines.append("Running: none")
        } else {
            lines.append("Running:")
            let rows = status.running.map { run -> [String] in
                let left = run.stopping ?? run.deadline.map { HumanTime.span(seconds: $0 - context.now) } ?? "-"
                let text = [run.title, run.subtitle, run.statusText].compactMap { $0 }.joined(separator: " — ")
                return [run.identifier, run.runID, HumanTime.span(seconds: context.now - run.startedAt), left,
                        run.progress.map { "\(Int($0 * 100))%" } ?? "-", text]
            }
            lines.append(Table(headers: ["IDENTIFIER", "RUN", "ELAPSED", "LEFT", "PROGRESS", "TITLE / STATUS"], rows: rows)
                .render(width: context.terminalWidth))
        }
        if status.pending.isEmpty {
            lines.append("Waiting: none")
        } else {
            lines.append("Waiting:")
            let rows = status.pending.map { [$0.identifier, $0.kind, $0.waitingFor] }
            lines.append(Table(headers: ["IDENTIFIER", "KIND", "WAITING FOR"], rows: rows)
                .render(width: context.terminalWidth))
            if let count = status.pendingCount, count > status.pending.count {
                lines.append("… and \(count - status.pending.count) more (agentctl pending)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// `--json`, shared by every read command.
let jsonOption = OptionSpec(long: "json", help: "Print JSON for scripts instead of a table.")

/// Colour only on a terminal, never with NO_COLOR.
enum Style {
    static func error(_ text: String, _ context: CommandContext) -> String {
        context.useColor ? "\u{1B}[31m\(text)\u{1B}[0m" : text
    }

    static func warning(_ text: String, _ context: CommandContext) -> String {
        context.useColor ? "\u{1B}[33m\(text)\u{1B}[0m" : text
    }
}
