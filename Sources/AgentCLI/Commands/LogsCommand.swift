// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl logs ID|RUN [-n N] [-f] [--json]` (`journalctl -u`'s habit): the output lines the
/// agent kept of a job's runs (each run keeps its last 50 lines, 64 KiB), oldest run first, each
/// line prefixed with its run id under a header naming the run and when it started (the agent
/// keeps no time per line). `-f` then follows live lines of a running run, and of the job's later
/// runs, through the event stream (`run-output` events); nothing is polled.
enum LogsCommand {
    static let spec = CommandSpec(
        name: "logs", abstract: "Show the output lines runs kept (journalctl -u); -f follows live ones.",
        discussion: """
        Each run keeps the last 50 lines (64 KiB) of its output: stderr, and stdout lines that are not
        directives. Runs are printed oldest first, each under a header with its start time, reason and
        result; each line starts with its run id. Without -n, the last 1,000 lines kept.
        -f follows: a run id until that run ends, an identifier until Ctrl-C (its later runs too).
        A plugin writing more in one go than an event carries (64 lines) shows "(N lines left out)", never a broken stream.
        """,
        examples: ["agentctl logs local.backup", "agentctl logs r000042", "agentctl logs local.backup -n 20 -f",
                   "agentctl logs local.backup --json"],
        options: [jsonOption,
                  OptionSpec(long: "lines", short: "n", valueName: "N", help: "Only the last N lines; -n as journalctl has it."),
                  OptionSpec(long: "follow", short: "f", help: "Then print new lines as the runs write them, until Ctrl-C (a run id: until it ends).")],
        arguments: [ArgumentSpec(name: "ID|RUN", help: "Job identifier (all its runs) or run id (r000042).")],
        run: { parsed, context in
            var limit: Int?
            if let text = parsed.value("lines") {
                guard let value = Int(text), value > 0 else {
                    throw UsageError(message: "--lines: \"\(text)\" is not a positive number (e.g. -n 20)", commandPath: ["logs"])
                }
                limit = value
            }
            let target = parsed.argument(0) ?? ""
            if parsed.flag("follow") {
                return try LogsFollower.run(target: target, limit: limit, json: parsed.flag("json"), context: context)
            }
            let runs = try pages(target: target, limit: limit, context: context)
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(runs.map(LogChunk.init(run:))))
            } else {
                context.out(render(runs, target: target, context: context))
            }
            return 0
        })

    /// The runs with their kept lines, oldest first, at most `limit` lines in all (the agent's
    /// default without one), read page by page.
    static func pages(target: String, limit: Int?, context: CommandContext,
                      send: (ControlRequest) throws -> ControlAnswer) throws -> [RunRecord] {
        var newestFirst: [RunRecord] = []
        var remaining = limit
        var cursor: RunCursor?
        repeat {
            let (page, next) = try send(ControlRequest.logs(LogsQuery(target: target, limit: remaining, cursor: cursor))).runs()
            newestFirst += page.reversed()
            let lines = page.reduce(0) { $0 + $1.logTail.count }
            remaining = remaining.map { $0 - lines }
            cursor = page.isEmpty && next == nil ? nil : next
        } while cursor != nil && (remaining ?? 1) > 0
        return newestFirst.reversed()
    }

    static func pages(target: String, limit: Int?, context: CommandContext) throws -> [RunRecord] {
        try pages(target: target, limit: limit, context: context) { try context.request($0) }
    }

    /// The runs' headers and lines, as people read them; pure, for tests.
    static func render(_ runs: [RunRecord], target: String, context: CommandContext) -> String {
        guard !runs.isEmpty else {
            return "-- No output lines kept for \(DisplayText.sanitized(target)) (agentctl history \(DisplayText.sanitized(target)) lists its runs) --"
        }
        var out: [String] = []
        for run in runs {
            out.append(context.style.apply(.dim, header(run, context: context)))
            out += run.logTail.map { line(run.runID, $0) }
        }
        return out.joined(separator: "\n")
    }

    /// `-- r000042 local.backup, started Tue 2026-12-01 10:00:00 (scheduled): failure(exit 3) after 5 s --`.
    static func header(_ run: RunRecord, context: CommandContext) -> String {
        let started = context.clock.format(DisplayClock.floorDivide(run.startedAt, 1000), "%a %Y-%m-%d %H:%M:%S")
        let outcome: String
        if let stop = run.stopReason, let ended = run.endedAt {
            outcome = "\(stop) after \(HumanTime.duration(milliseconds: ended - run.startedAt))"
        } else {
            outcome = "running"
        }
        return "-- \(DisplayText.sanitized(run.runID)) \(DisplayText.sanitized(run.identifier)), started \(started) (\(DisplayText.sanitized(run.reason.description))): \(DisplayText.sanitized(outcome)) --"
    }

    /// One output line: `r000042: text`, control characters made visible.
    static func line(_ runID: String, _ text: String) -> String {
        DisplayText.sanitized(runID) + ": " + DisplayText.sanitized(text)
    }
}

/// One element of `logs --json`: a run and the lines it kept; with `-f`, a run's start, a batch
/// of its live lines, or its end.
struct LogChunk: Codable, Equatable {
    var runID: String
    var identifier: String
    var reason: String?
    @OptionalInstant<EpochMilliseconds> var startedAt: Int64?
    @OptionalInstant<EpochMilliseconds> var endedAt: Int64?
    var stopReason: String?
    var lines: [String]
    /// `-f`: lines the agent left out of a batch to keep a flooding run's events bounded.
    var droppedLineCount: Int?

    init(run: RunRecord) {
        runID = run.runID
        identifier = run.identifier
        reason = run.reason.description
        startedAt = run.startedAt
        endedAt = run.endedAt
        stopReason = run.stopReason?.description
        lines = run.logTail
    }

    init(event: AgentEvent) {
        runID = event.runID ?? ""
        identifier = event.identifier ?? ""
        reason = event.reason?.description
        startedAt = event.eventKind == .runStarted ? event.time : nil
        endedAt = event.eventKind == .runEnded ? event.time : nil
        stopReason = event.stopReason?.description
        lines = event.lines ?? []
        droppedLineCount = event.droppedLineCount
    }
}
