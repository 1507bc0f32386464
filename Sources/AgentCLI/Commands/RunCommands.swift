// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl simulate launch|expire ID`, `cancel ID|RUN`, `history [ID]`.
enum RunCommands {
    static let simulate = CommandSpec(
        name: "simulate", abstract: "Launch or expire a job now, as the LLDB simulate calls do on iOS (root).",
        examples: ["agentctl simulate launch local.tidy-tmp", "agentctl simulate expire local.tidy-tmp"],
        subcommands: [
            CommandSpec(
                name: "launch", abstract: "Run a job now (reason simulated), bypassing policy but not permission.",
                examples: ["agentctl simulate launch local.tidy-tmp"],
                arguments: [ArgumentSpec(name: "ID", help: "Job identifier.")],
                run: { parsed, context in
                    try change(.simulateLaunch(target: parsed.argument(0) ?? ""), context)
                }),
            CommandSpec(
                name: "expire", abstract: "Start the expiration sequence (SIGTERM, grace, SIGKILL) of a job's live run.",
                examples: ["agentctl simulate expire com.example.demo.cleanup"],
                arguments: [ArgumentSpec(name: "ID", help: "Job identifier or run id (r000042).")],
                run: { parsed, context in
                    try change(.simulateExpire(target: parsed.argument(0) ?? ""), context)
                }),
        ])

    /// `agentctl run ID`: the administrator's "run it now" (DESIGN §8).
    static let runNow = CommandSpec(
        name: "run", abstract: "Run a job now (reason manual): policy bypassed, permission not (root, group agentd, or the manifest's Users=/Groups=).",
        discussion: "Like every launch it is decided by the agent's scheduler: refused while the job already runs (one run at a time for refresh and processing jobs) or while the agent stops. A continued job is started with agentctl submit. Prints the run it started; agentctl logs RUN -f follows its output. With --wait it follows the run to its end, as systemctl start waits for a oneshot service, and its exit status is the run's.",
        examples: ["agentctl run local.backup", "agentctl run local.backup --wait", "agentctl run com.example.demo.refresh"],
        options: [OptionSpec(long: "wait", help: "Follow the run to its end; exit 0 success, 1 failure, 6 expired, 7 cancelled, 8 crashed or spawn-failed.")],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier (refresh or processing).")],
        run: { parsed, context in
            let request = ControlRequest.run(target: parsed.argument(0) ?? "")
            if parsed.flag("wait") { return try RunWait.run(request, context: context) }
            return try change(request, context)
        })

    static let cancel = CommandSpec(
        name: "cancel", abstract: "Stop a live run (SIGTERM, grace period, SIGKILL); it is recorded cancelled. Pending requests stay (cancel-request).",
        examples: ["agentctl cancel r000042", "agentctl cancel com.example.demo.export"],
        arguments: [ArgumentSpec(name: "ID|RUN", help: "Job identifier (all its runs) or run id.")],
        run: { parsed, context in
            try change(.cancel(target: parsed.argument(0) ?? ""), context)
        })

    static let history = CommandSpec(
        name: "history", abstract: "Show finished and live runs, newest first, with stop reasons and durations.",
        discussion: "The agent answers in pages (at most 1,000 runs or 64 KiB each); agentctl reads page after page until it has --limit runs, printing --json output as it arrives.",
        examples: ["agentctl history", "agentctl history local.tidy-tmp --limit 5", "agentctl history -v --limit 3",
                   "agentctl history --since yesterday --until today", "agentctl history --since -2h",
                   "agentctl history --json --limit 5000"],
        options: [jsonOption, OptionSpec(long: "limit", short: "n", valueName: "N", help: "How many runs (default \(HistoryPager.defaultLimit)); -n as journalctl has it."),
                  OptionSpec(long: "verbose", short: "v", help: "Under each run, what it said: its last STATUS=, its RESULT=, the checkpoint it was given and left, lines cut and directives ignored, and a failed run's last output lines."),
                  OptionSpec(long: "since", valueName: "TIME", help: "Only runs started at or after TIME (systemd.time(7): today, yesterday, -2h, '2026-12-01 10:00', @1700000000)."),
                  OptionSpec(long: "until", valueName: "TIME", help: "Only runs started before TIME (same forms as --since).")],
        arguments: [ArgumentSpec(name: "ID", help: "Only runs of this identifier.", isOptional: true)],
        run: { parsed, context in
            var limit = HistoryPager.defaultLimit
            if let text = parsed.value("limit") {
                guard let value = Int(text), value > 0 else {
                    throw UsageError(message: "--limit: \"\(text)\" is not a positive number (e.g. --limit 5)", commandPath: ["history"])
                }
                limit = value
            }
            let range = try StartRange.parse(since: parsed.value("since"), until: parsed.value("until"),
                                             context: context, command: ["history"])
            if parsed.flag("json") {
                var writer = PrettyJSONArrayWriter(descriptor: context.outputDescriptor)
                try HistoryPager.forEachPage(target: parsed.argument(0), limit: limit, range: range, context: context) { page in
                    for run in page { try writer.write(run) }
                }
                writer.finish()
            } else if parsed.flag("verbose") {
                // Failed runs show their last lines: tails are read, and only those few kept.
                var runs: [RunRecord] = []
                try HistoryPager.forEachPage(target: parsed.argument(0), limit: limit, range: range, context: context) { page in
                    runs += page.map { run in
                        var run = run
                        if run.stopReason?.known == .success { run.logTail = [] }
                        return run
                    }
                }
                context.out(runs.isEmpty ? noRuns(parsed.argument(0), range, context: context) : render(runs, context: context, verbose: true))
            } else {
                // A table needs every row for its column widths; rows without log tails are small.
                let runs = try HistoryPager.summaries(target: parsed.argument(0), limit: limit, range: range, context: context)
                context.out(runs.isEmpty ? noRuns(parsed.argument(0), range, context: context) : render(runs, context: context))
            }
            return 0
        })

    static let noRunsInRange = "No runs started in that time (agentctl history without --since/--until shows the newest)."

    /// An empty history of `target`: the agent says what would start its first run — by its
    /// kind — or why nothing can (its file in error, not permitted).
    static func noRuns(_ target: String?, _ range: StartRange, context: CommandContext) -> String {
        guard let target, range == StartRange(),
              let (timeline, _, kind, _) = try? context.request(ControlRequest.explain(target: target)).explanation()
        else { return noRuns(target, range) }
        if let last = timeline.last, last.isNotRegistered { return "No runs yet: \(target) is \(last.event)." }
        switch kind {
        case .continued?: return "No runs yet (agentctl submit \(target) starts one)."
        case .refresh?, .processing?: return "No runs yet (agentctl run \(target) starts one now)."
        case nil: return noRuns(target, range)
        }
    }

    /// An empty history: none in the range asked for, or none yet (of `target`, which a run
    /// would start: the hint names it).
    static func noRuns(_ target: String?, _ range: StartRange) -> String {
        if range != StartRange() { return noRunsInRange }
        // Without asking the agent for the kind: `run` refuses a continued job.
        let id = target ?? "ID"
        return "No runs yet (agentctl run \(id) starts one now; a continued job starts with agentctl submit \(id))."
    }

    /// Runs newest first: when they started (`2 h ago`, `12:05`), how long they took, and how they
    /// ended, coloured by outcome; `verbose`: each row followed by what the run said.
    static func render(_ runs: [RunRecord], context: CommandContext, verbose: Bool = false) -> String {
        guard !runs.isEmpty else { return noRuns(nil, StartRange()) }
        let nowMilliseconds = context.clock.now()
        let rows = runs.map { run -> [Table.Cell] in
            let duration = HumanTime.duration(milliseconds: (run.endedAt ?? nowMilliseconds) - run.startedAt)
            let result = run.stopReason?.description ?? "running"
            return [Table.Cell(run.runID),
                    Table.Cell(run.identifier),
                    Table.Cell(run.reason.description),
                    Table.Cell(HumanTime.moment(DisplayClock.floorDivide(run.startedAt, 1000), clock: context.clock)),
                    Table.Cell(duration, run.endedAt == nil ? .running : nil),
                    Table.Cell(result, Style.role(forStopReason: run.stopReason))]
        }
        let table = Table(columns: [.fixed("RUN"), .fixed("IDENTIFIER"), .fixed("REASON"), .fixed("STARTED"), .fixed("DURATION"), "RESULT"],
                          rows: rows)
            .render(width: context.terminalWidth, style: context.style)
        guard verbose else { return table }
        // The table draws one line per row, after its header.
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var out = lines.prefix(1).map { $0 }
        for (index, line) in lines.dropFirst().enumerated() {
            out.append(line)
            if index < runs.count {
                out += (RunNotesView.lines(runs[index].notes, indent: "    ", width: context.terminalWidth)
                    + RunNotesView.failedOutput(runs[index], indent: "    ", width: context.terminalWidth))
                    .map { context.style.apply(.dim, $0) }
            }
        }
        return out.joined(separator: "\n")
    }

    private static func change(_ request: ControlRequest, _ context: CommandContext) throws -> Int32 {
        let answer = try context.request(request)
        context.out(context.style.success(DisplayText.sanitized(try answer.done().message)))
        return 0
    }
}
