// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl list`: every job the agent has read — by default as `systemctl list-timers` shows
/// timers (``TimersView``), with `--files` as the files they came from.
enum ListCommand {
    static let spec = CommandSpec(
        name: "list", abstract: "List jobs: when each runs next and last ran, how that ended, and its state.",
        discussion: """
            The columns are systemctl list-timers' (NEXT, LEFT, LAST, PASSED, RESULT), then the job and its \
            state, sorted by NEXT; jobs that cannot run (a file in error, not permitted) come last. \
            --files shows each job's kind, interval and the file it came from instead.
            """,
        examples: ["agentctl list", "agentctl list --files", "agentctl list --json"],
        options: [OptionSpec(long: "files", help: "Each job's kind, interval, the file it came from and its state."),
                  OptionSpec(long: "timers", help: "The default view (still accepted, as it was needed before)."),
                  jsonOption],
        run: { parsed, context in
            let jobs = try context.allJobs()
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(jobs))
            } else if parsed.flag("files") {
                context.out(render(jobs, context: context))
            } else {
                let last = jobs.isEmpty ? [:] : try TimersView.lastRuns(of: jobs, context: context)
                context.out(TimersView.render(jobs, lastRun: last, context: context))
            }
            return 0
        })

    static let noJobs = "No jobs. Drop a job file or an executable script into the config directory's jobs.d/ (agentctl check shows what agentd would make of it)."

    /// `list --files`: identifier, kind, interval, the file and the state.
    static func render(_ jobs: [JobSummary], context: CommandContext) -> String {
        guard !jobs.isEmpty else { return noJobs }
        let rows = jobs.map { job -> [Table.Cell] in
            [Table.Cell(job.identifier),
             Table.Cell(job.kind?.rawValue ?? "-"),
             job.intervalSeconds.map { Table.Cell(HumanTime.span(seconds: $0)) } ?? Table.Cell("-", .dim),
             Table.Cell(job.source),
             job.waiting.map { waiting in
                 Table.Cell(waiting == "running" ? "running"
                     : "waiting: " + WaitingText.local(waiting, code: job.waitingReason, until: job.waitingUntil, clock: context.clock), .warning)
             }
                ?? Table.Cell(job.state, role(forState: job.state))]
        }
        return Table(columns: [.fixed("IDENTIFIER"), .fixed("KIND"), .fixed("EVERY"), "SOURCE", "STATE"], rows: rows)
            .render(width: context.terminalWidth, style: context.style)
    }

    /// `registered` green, `not-permitted: …` red, anything else (`duplicate of …`) yellow.
    static func role(forState state: String) -> Style.Role {
        if state == JobSummary.registered { return .success }
        if state.hasPrefix("not-permitted") { return .error }
        return .warning
    }
}
