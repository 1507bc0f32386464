import AgentProtocol

/// `agentctl list`: every job file the agent has read, with its state.
enum ListCommand {
    static let spec = CommandSpec(
        name: "list", abstract: "List jobs: identifier, kind, state and the file they came from.",
        examples: ["agentctl list", "agentctl list --json"],
        options: [jsonOption],
        run: { parsed, context in
            let response = try context.request(ControlRequest(command: .list))
            let jobs = response.jobs ?? []
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(jobs))
            } else if jobs.isEmpty {
                context.out("No jobs. Drop a job file or an executable script into the config directory's jobs.d/.")
            } else {
                let rows = jobs.map { job in
                    [job.identifier, job.kind, job.waiting.map { $0 == "running" ? "running" : "waiting: \($0)" } ?? job.state, job.source]
                }
                context.out(Table(headers: ["IDENTIFIER", "KIND", "STATE", "SOURCE"], rows: rows)
                    .render(width: context.terminalWidth))
            }
            return 0
        })
}
