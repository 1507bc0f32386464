// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl list`: `systemctl list-timers`' view of the agent's jobs (DESIGN §8) — when each
/// runs next and how long until, when it last ran and how long ago, how that run ended, and its
/// state — sorted by NEXT, so the admin's habit finds the same columns here. Jobs that cannot
/// run (a file in error, not permitted, a duplicate) come last, with their state in its place.
enum TimersView {
    /// How many recent runs are read to find each job's last one.
    static let runsRead = 1000
    /// How many jobs none of those runs names are then asked about one by one.
    static let lookupsMax = 64

    /// systemd's timestamp and LEFT to the second, as `systemctl list-timers` prints them; on a
    /// terminal too narrow for them, `12:05` / `Mon 12:05` / `2026-11-30 12:05` and `12 min`.
    enum Stamps {
        case full
        case short
    }

    /// The narrowest the STATE column is allowed before the timestamps are shortened instead.
    static let stateRoom = 24

    /// Each job's last run: from the `runsRead` most recent runs, then — when there are more —
    /// the newest run of each job they do not name (a daily job's LAST must survive a minute
    /// job's busy history), asked for one by one, up to `lookupsMax` jobs.
    static func lastRuns(of jobs: [JobSummary], context: CommandContext) throws -> [String: RunRecord] {
        let recent = try HistoryPager.summaries(target: nil, limit: runsRead, context: context)
        var last = latest(recent)
        guard recent.count == runsRead else { return last }
        let unnamed = jobs.filter { $0.isRegistered && last[$0.identifier] == nil }
        for job in unnamed.prefix(lookupsMax) {
            // A job's history includes its submissions' dynamic identifiers (`ID.Holidays`).
            last[job.identifier] = try HistoryPager.summaries(target: job.identifier, limit: 1, context: context).first
        }
        return last
    }

    /// The newest of `runs` (newest first) for each identifier.
    static func latest(_ runs: [RunRecord]) -> [String: RunRecord] {
        var last: [String: RunRecord] = [:]
        for run in runs where last[run.identifier] == nil { last[run.identifier] = run }
        return last
    }

    static func render(_ jobs: [JobSummary], lastRun: [String: RunRecord], context: CommandContext) -> String {
        guard !jobs.isEmpty else { return ListCommand.noJobs }
        let sorted = order(jobs)
        var table = self.table(sorted, lastRun: lastRun, stamps: .full, context: context)
        if let width = context.terminalWidth, !fits(table, width: width) {
            table = self.table(sorted, lastRun: lastRun, stamps: .short, context: context)
        }
        return table.render(width: context.terminalWidth, style: context.style)
            + "\n\n" + DisplayText.plural(sorted.count, "job") + " listed."
    }

    /// Registered jobs by NEXT (those with none after them, by identifier), then the rest.
    static func order(_ jobs: [JobSummary]) -> [JobSummary] {
        jobs.sorted { a, b in
            let (ra, rb) = (a.isRegistered, b.isRegistered)
            if ra != rb { return ra }
            switch (a.waitingUntil, b.waitingUntil) {
            case let (x?, y?): return x != y ? x < y : a.identifier < b.identifier
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return a.identifier < b.identifier
            }
        }
    }

    /// Whether the fixed columns and a readable STATE fit in `width` columns.
    static func fits(_ table: Table, width: Int) -> Bool {
        let natural = table.columnWidths(fitting: nil)
        let state = min(natural.last ?? 0, stateRoom)
        return natural.dropLast().reduce(0, +) + 2 * (natural.count - 1) + state <= width
    }

    static func table(_ jobs: [JobSummary], lastRun: [String: RunRecord], stamps: Stamps,
                      context: CommandContext) -> Table {
        let now = context.now
        let stamp: (Int64) -> String = { seconds in
            switch stamps {
            case .full: context.clock.format(seconds, "%a %Y-%m-%d %H:%M:%S %Z")
            case .short: HumanTime.clockTime(seconds, clock: context.clock)
            }
        }
        let left: (Int64) -> String = { seconds in
            stamps == .full ? HumanTime.span(seconds: seconds) : HumanTime.roughSpan(seconds: seconds)
        }
        let rows = jobs.map { job -> [Table.Cell] in
            let next = job.isRegistered ? job.waitingUntil.map { Int64($0.rounded(.down)) } : nil
            let last = lastRun[job.identifier]
            let lastStart = last.map { DisplayClock.floorDivide($0.startedAt, 1000) }
            return [
                next.map { Table.Cell(stamp($0)) } ?? Table.Cell("-", .dim),
                next.map { Table.Cell(left($0 - now)) } ?? Table.Cell("-", .dim),
                lastStart.map { Table.Cell(stamp($0)) } ?? Table.Cell("-", .dim),
                lastStart.map { Table.Cell(HumanTime.ago(seconds: now - $0)) } ?? Table.Cell("-", .dim),
                last.map { run in
                    run.stopReason.map { Table.Cell($0.description, $0.known == .success ? .success : .error) }
                        ?? Table.Cell("running", .warning)
                } ?? Table.Cell("-", .dim),
                Table.Cell(job.identifier),
                state(of: job, running: last.map { $0.stopReason == nil } ?? false, clock: context.clock),
            ]
        }
        // RESULT may be cut: a stop reason can be long (`spawn-failed(unsafe: …)`).
        return Table(columns: [.fixed("NEXT"), .fixed("LEFT"), .fixed("LAST"), .fixed("PASSED"), "RESULT",
                               .fixed("JOB"), "STATE"], rows: rows)
    }

    /// What it waits for (`waiting: interval (earliest 14:05)`), `running` (while its last run
    /// is live, NEXT saying when the next one is due), `not due`; for a job that cannot run, why
    /// (`error (jobs.d/x.job:5)`, `not-permitted: …`).
    static func state(of job: JobSummary, running: Bool = false, clock: DisplayClock) -> Table.Cell {
        guard job.isRegistered else { return Table.Cell(job.state, ListCommand.role(forState: job.state)) }
        if running { return Table.Cell("running", .success) }
        guard let waiting = job.waiting else { return Table.Cell("not due", .dim) }
        let local = WaitingText.local(waiting, code: job.waitingReason, until: job.waitingUntil, clock: clock)
        return waiting == "running" ? Table.Cell("running", .success) : Table.Cell("waiting: \(local)", .warning)
    }
}
