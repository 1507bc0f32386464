// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl list`: every job file the agent has read, with its state.
enum ListCommand {
    static let spec = CommandSpec(
        name: "list", abstract: "List jobs: identifier, kind, interval, the file they came from and their state.",
        discussion: "--timers shows what systemctl list-timers shows: NEXT, LEFT, LAST, PASSED, RESULT and the job, sorted by NEXT.",
        examples: ["agentctl list", "agentctl list --timers", "agentctl list --json"],
        options: [OptionSpec(long: "timers", help: "When each job runs next and last ran, like systemctl list-timers."),
                  jsonOption],
        run: { parsed, context in
            let jobs = try context.request(ControlRequest.list).jobs()
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(jobs))
            } else if parsed.flag("timers") {
                let runs = try HistoryPager.summaries(target: nil, limit: TimersView.runsRead, context: context)
                context.out(TimersView.render(jobs, runs: runs, context: context))
            } else {
                context.out(render(jobs, context: context))
            }
            return 0
        })

    static func render(_ jobs: [JobSummary], context: CommandContext) -> String {
        guard !jobs.isEmpty else {
            return "No jobs. Drop a job file or an executable script into the config directory's jobs.d/ (agentctl check shows what agentd would make of it)."
        }
        let rows = jobs.map { job -> [Table.Cell] in
            [Table.Cell(job.identifier),
             Table.Cell(job.kind?.rawValue ?? "-"),
             job.intervalSeconds.map { Table.Cell(HumanTime.span(seconds: $0)) } ?? Table.Cell("-", .dim),
             Table.Cell(job.source),
             job.waiting.map { Table.Cell($0 == "running" ? "running" : "waiting: \($0)", .warning) }
                ?? Table.Cell(job.state, role(forState: job.state))]
        }
        return Table(columns: [.fixed("IDENTIFIER"), .fixed("KIND"), .fixed("EVERY"), "SOURCE", "STATE"], rows: rows)
            .render(width: context.terminalWidth, style: context.style)
    }

    /// `registered` green, `not-permitted: …` red, anything else (`duplicate of …`) yellow.
    static func role(forState state: String) -> Style.Role {
        if state == "registered" { return .success }
        if state.hasPrefix("not-permitted") { return .error }
        return .warning
    }
}
