// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// `agentctl status`: the agent, its config and its work at a glance.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "status", abstract: "Show the agent, its config errors, the policy inputs, running and waiting work.",
        discussion: """
        Inputs are what the policy decides from (power, low-power mode, thermal state, network,
        pressure) and which kernel sources the agent reads live; a source not live is shown in yellow.
        Running runs show how long they have run, the time left before MaxRuntime expires them
        (expiring/cancelled once they are being stopped, paused: REASON while frozen), their
        progress and title. Waiting work says what it waits for.
        """,
        examples: ["agentctl status", "agentctl status --json | jq .diagnostics"],
        options: [jsonOption],
        run: { parsed, context in
            let status = try context.request(ControlRequest.status).status()
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(status))
            } else {
                context.out(render(status, context: context))
            }
            return 0
        })

    /// `watching: 3 directories`, or what is missing (in yellow) and that its config stays.
    static func watchLine(_ watch: ConfigWatchStatus, style: Style) -> String {
        let watching = "watching: \(watch.watching) \(watch.watching == 1 ? "directory" : "directories")"
        guard !watch.missing.isEmpty else { return watching }
        let missing = watch.missing.map(DisplayText.sanitized).joined(separator: ", ")
        return watching + "; " + style.warning("missing: \(missing) (last config kept)")
    }

    static func render(_ status: StatusReport, context: CommandContext) -> String {
        let style = context.style
        let errors = status.diagnostics.filter { $0.severity == .error }.count
        let warnings = status.diagnostics.filter { $0.severity == .warning }.count
        let errorText = style.apply(errors > 0 ? .error : nil, DisplayText.plural(errors, "error"))
        let warningText = style.apply(warnings > 0 ? .warning : nil, DisplayText.plural(warnings, "warning"))
        let files = "\(DisplayText.plural(status.manifestCount, "manifest")), \(DisplayText.plural(status.jobCount, "job"))"
        var lines = [
            "agentd \(status.version), up \(HumanTime.span(seconds: status.uptimeSeconds)) (pid \(status.pid))",
            "config:   \(status.configDirectory): \(files), \(errorText), \(warningText)",
            "state:    \(status.stateDirectory)",
            "socket:   \(status.socketPath)",
        ]
        if let watch = status.configWatch {
            lines.append(watchLine(watch, style: style))
        }
        if let limits = status.runLimits, !limits.isEmpty {
            lines += LimitView.statusLines(limits, style: style, width: context.terminalWidth)
        }
        if let budgets = status.budgets, !budgets.isEmpty {
            lines += BudgetView.lines(budgets, paused: status.paused == true, clock: context.clock, style: style)
        } else if let left = status.budgetLeft, let budget = status.dailyBudget {
            lines.append("budget:   \(left) of \(budget) discretionary launches left today" + (status.paused == true ? "; PAUSED (agentctl resume)" : ""))
        }
        if let problem = status.stateError {
            lines.append(style.error("state error: \(DisplayText.sanitized(problem))"))
        }
        if let problem = status.metricsFileProblem {
            lines.append(style.warning(DisplayText.sanitized(problem)))
        }
        if !status.diagnostics.isEmpty {
            lines.append("")
            lines.append("Config problems (agentctl check \(status.configDirectory) shows the same offline):")
            for diagnostic in status.diagnostics {
                lines.append("  " + CheckCommand.line(diagnostic, style: style))
            }
        }
        if let inputs = status.inputs {
            lines.append("")
            lines.append("Inputs:")
            lines += InputsView.block(inputs, width: context.terminalWidth).map { $0.rendered(style) }
        }
        lines.append("")
        if status.running.isEmpty {
            lines.append("Running: " + style.dim("none"))
        } else {
            lines.append("Running:")
            lines.append(runningTable(status.running, context: context).render(width: context.terminalWidth, style: style))
            lines.append("")
        }
        if status.pending.isEmpty {
            lines.append("Waiting: " + style.dim("none"))
        } else {
            lines.append("Waiting:")
            let rows = status.pending.map { pending -> [Table.Cell] in
                [Table.Cell(pending.identifier), Table.Cell(pending.kind.rawValue), Table.Cell(WaitingText.local(pending.waitingFor, code: pending.reason, until: pending.until, clock: context.clock), .warning)]
            }
            lines.append(Table(columns: [.fixed("IDENTIFIER"), .fixed("KIND"), "WAITING FOR"], rows: rows)
                .render(width: context.terminalWidth, style: style))
            if let count = status.pendingCount, count > status.pending.count {
                lines.append("… and \(count - status.pending.count) more (agentctl pending)")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func runningTable(_ runs: [RunSummary], context: CommandContext) -> Table {
        let now = context.now
        let rows = runs.map { run -> [Table.Cell] in
            let left = timeLeft(run, now: now, pauseReason: false)
            // Why a paused run waits is free text: it goes with the title, which may be cut,
            // not in LEFT, which is not.
            let paused = run.stopping == nil ? run.paused.map { "paused: \(DisplayText.sanitized($0))" } : nil
            let text = [paused, run.title, run.subtitle, run.statusText].compactMap { $0 }.joined(separator: " — ")
            return [
                Table.Cell(run.identifier, .running),
                Table.Cell(run.runID),
                Table.Cell(HumanTime.span(seconds: now - run.startedAt)),
                Table.Cell(left.text, left.role),
                run.progress.map { Table.Cell("\(percent($0))%") } ?? Table.Cell("-", .dim),
                Table.Cell(text),
            ]
        }
        return Table(columns: [.fixed("IDENTIFIER"), .fixed("RUN"), .fixed("ELAPSED"), .fixed("LEFT"), .fixed("PROGRESS"), "TITLE / STATUS"],
                     rows: rows)
    }

    /// Time left before MaxRuntime expires a run: `in 4 min`; `expiring` or `cancelled` once the
    /// agent is stopping it (or its deadline passed); `paused: external power` while it is frozen
    /// (`OnConditionLost=pause`; only `paused` where the reason is shown elsewhere, as the
    /// status table does in its title column); `-` without a MaxRuntime.
    static func timeLeft(_ run: RunSummary, now: Int64, pauseReason: Bool = true) -> (text: String, role: Style.Role?) {
        if let stopping = run.stopping {
            return (stopping == "cancelled" ? "cancelled" : "expiring", .warning)
        }
        if let reason = run.paused {
            return (pauseReason ? "paused: \(DisplayText.sanitized(reason))" : "paused", .warning)
        }
        guard let deadline = run.deadline else { return ("-", .dim) }
        return deadline > now ? (HumanTime.until(seconds: deadline - now), nil) : ("expiring", .warning)
    }

    /// Whole percent, rounded down (0.29 stays 29).
    static func percent(_ fraction: Double) -> Int {
        fraction.isNaN ? 0 : min(100, max(0, Int(fraction * 100 + 1e-9)))
    }
}

/// `--json`, shared by every read command.
let jsonOption = OptionSpec(long: "json", help: "Print JSON for scripts instead of a table.")
