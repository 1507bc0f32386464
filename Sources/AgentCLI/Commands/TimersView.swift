// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl list --timers`: `systemctl list-timers`' view of the agent's jobs — when each runs
/// next and how long until, when it last ran and how long ago, how that run ended — sorted by
/// NEXT (jobs with none last), so the admin's habit finds the same columns here.
enum TimersView {
    /// How many recent runs are read to find each job's last one.
    static let runsRead = 1000

    static func render(_ jobs: [JobSummary], runs: [RunRecord], context: CommandContext) -> String {
        guard !jobs.isEmpty else { return ListCommand.render(jobs, context: context) }
        var lastRun: [String: RunRecord] = [:]
        for run in runs where lastRun[run.identifier] == nil { lastRun[run.identifier] = run }
        let now = context.now
        let sorted = jobs.filter { $0.state == "registered" }.sorted { a, b in
            switch (a.waitingUntil, b.waitingUntil) {
            case let (x?, y?): return x != y ? x < y : a.identifier < b.identifier
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return a.identifier < b.identifier
            }
        }
        let rows = sorted.map { job -> [Table.Cell] in
            let next = job.waitingUntil.map { Int64($0.rounded(.down)) }
            let last = lastRun[job.identifier]
            let lastStart = last.map { DisplayClock.floorDivide($0.startedAt, 1000) }
            return [
                next.map { Table.Cell(context.clock.format($0, "%a %Y-%m-%d %H:%M:%S %Z")) } ?? Table.Cell("-", .dim),
                next.map { Table.Cell(HumanTime.span(seconds: $0 - now)) } ?? Table.Cell("-", .dim),
                lastStart.map { Table.Cell(context.clock.format($0, "%a %Y-%m-%d %H:%M:%S %Z")) } ?? Table.Cell("-", .dim),
                lastStart.map { Table.Cell(HumanTime.ago(seconds: now - $0)) } ?? Table.Cell("-", .dim),
                last.map { run in
                    run.stopReason.map { Table.Cell($0.description, $0.known == .success ? .success : .error) } ?? Table.Cell("running", .warning)
                } ?? Table.Cell("-", .dim),
                Table.Cell(job.identifier),
                Table.Cell(job.waiting.map { $0 == "running" ? "running" : "waiting: \($0)" } ?? "not due", .dim),
            ]
        }
        let table = Table(columns: [.fixed("NEXT"), .fixed("LEFT"), .fixed("LAST"), .fixed("PASSED"), .fixed("RESULT"),
                                    .fixed("JOB"), "WHY"], rows: rows)
            .render(width: context.terminalWidth, style: context.style)
        return table + "\n\n" + DisplayText.plural(sorted.count, "job") + " listed."
    }
}
