// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Glibc

/// `pending`, `trigger`, `submit`, `enable`, `disable`, `pause`, `resume`, `explain`.
enum SchedulingCommands {
    static let pending = CommandSpec(
        name: "pending", abstract: "Show waiting requests and why each waits (getPendingTaskRequests).",
        examples: ["agentctl pending", "agentctl pending local.backup", "agentctl pending --json"],
        options: [jsonOption],
        arguments: [ArgumentSpec(name: "ID", help: "Only this identifier's entries (an unknown one is an error).", isOptional: true)],
        run: { parsed, context in
            let items = if let id = parsed.argument(0) {
                try context.request(ControlRequest.pending(target: id)).pending()
            } else {
                try context.allPending()
            }
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(items))
            } else if items.isEmpty {
                context.out("Nothing is waiting.")
            } else {
                context.out(pendingTable(items, context).render(width: context.terminalWidth))
            }
            return 0
        })

    static let trigger = CommandSpec(
        name: "trigger", abstract: "Ask for a run soon (the silent-push analog): rate-limited, repeated triggers merge.",
        discussion: "Says the run it started, or when the launch will be at the earliest and what keeps it from being sooner (TriggerSpacing=, the interval, a condition). agentctl run ID runs a job now.",
        examples: ["agentctl trigger com.example.demo.refresh"],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier (refresh or processing).")],
        run: { parsed, context in try change(.trigger(target: parsed.argument(0) ?? ""), context) })

    static let submit = CommandSpec(
        name: "submit", abstract: "Start a continued task on a person's behalf.",
        discussion: "The identifier is a continued job's, or extends one with a suffix a manifest permits (ID.*).\n--strategy fail refuses at once (exit 5) when it cannot start now; queue (default) waits.",
        examples: ["agentctl submit com.example.demo.export --title 'Export' -- --album Holidays",
                   "agentctl submit com.example.demo.export.$(uuidgen) --strategy fail --wait"],
        options: [OptionSpec(long: "title", valueName: "T", help: "Title shown until the plugin sets one."),
                  OptionSpec(long: "subtitle", valueName: "S", help: "Subtitle shown until the plugin sets one."),
                  OptionSpec(long: "strategy", valueName: "queue|fail", help: "When it cannot start now: wait (queue) or refuse (fail)."),
                  OptionSpec(long: "no-notify", help: "Show no desktop notification for this run (per-user agent)."),
                  OptionSpec(long: "wait", help: "Follow the run to its end; exit 0 success, 1 failure, 6 expired, 7 cancelled, 8 crashed or spawn-failed.")],
        arguments: [ArgumentSpec(name: "ID", help: "Identifier of the continued job, optionally with a dynamic suffix.")],
        acceptsPassthrough: true,
        run: { parsed, context in
            let word = parsed.value("strategy") ?? SubmitStrategy.queue.rawValue
            guard let strategy = SubmitStrategy(rawValue: word) else {
                throw UsageError(message: "--strategy: \"\(word)\" is not a strategy (queue, fail)", commandPath: ["submit"])
            }
            let id = parsed.argument(0) ?? ""
            let request = ControlRequest.submit(
                target: id,
                SubmitRequest(title: parsed.value("title"), subtitle: parsed.value("subtitle"),
                                          strategy: strategy, arguments: parsed.passthrough,
                                          notify: parsed.flag("no-notify") ? false : nil))
            if parsed.flag("wait") { return try RunWait.run(request, context: context) }
            context.out(try context.request(request).done().message)
            return 0
        })

    static let enable = CommandSpec(
        name: "enable", abstract: "Let a job run again after disable.",
        examples: ["agentctl enable local.tidy-tmp"],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier.")],
        run: { parsed, context in try change(.enable(target: parsed.argument(0) ?? ""), context) })

    static let disable = CommandSpec(
        name: "disable", abstract: "Stop a job from running (it waits as \"disabled\") until enable.",
        examples: ["agentctl disable local.tidy-tmp"],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier.")],
        run: { parsed, context in try change(.disable(target: parsed.argument(0) ?? ""), context) })

    static let pause = CommandSpec(
        name: "pause", abstract: "Hold all discretionary work (refresh, processing); continued work still runs.",
        examples: ["agentctl pause"],
        run: { _, context in try change(.pause, context) })

    static let resume = CommandSpec(
        name: "resume", abstract: "Let discretionary work run again after pause.",
        examples: ["agentctl resume"],
        run: { _, context in try change(.resume, context) })

    static let explain = CommandSpec(
        name: "explain", abstract: "Why didn't my job run? Its recent timeline and what it waits for.",
        examples: ["agentctl explain com.example.demo.refresh"],
        options: [jsonOption],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier.")],
        run: { parsed, context in
            let id = parsed.argument(0) ?? ""
            let (timeline, pending, kind, chainedBy) = try context.request(ControlRequest.explain(target: id)).explanation()
            let history = try context.request(ControlRequest.history(HistoryQuery(target: id, limit: 10))).runs().page
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(ExplainReport(kind: kind, chainedBy: chainedBy, timeline: timeline,
                                                                         waiting: pending, runs: history)))
                return 0
            }
            var lines = ["\(id):"]
            lines.append(nowLine(pending: pending, runs: history, timeline: timeline, kind: kind ?? history.first?.kind,
                                 chainedBy: chainedBy, context: context))
            lines.append("Timeline (oldest first):")
            if timeline.isEmpty { lines.append("  nothing yet since the agent started") }
            for entry in timeline { lines.append("  \(LocalClockText.text(entry.time, now: Double(context.now)))  \(entry.event)") }
            if !history.isEmpty {
                lines.append("Recent runs:")
                lines.append(RunCommands.render(history, context: context))
                lines += LimitView.explainLines(history)
                if let last = history.first(where: { $0.endedAt != nil }) {
                    let said = RunNotesView.lines(last.notes, indent: "  ", width: context.terminalWidth)
                    lines.append("Last run (\(last.runID)) said:")
                    // Counts are recorded at every end by this agentd: none means an older one, or an agent restart.
                    let silent = last.detailsHidden == true
                        ? "  not shown to you: its job file is not readable by you (root, group agentd and its manifest's Users=/Groups= see it)"
                        : last.notes.truncatedLineCount == nil
                        ? "  nothing recorded" : "  nothing: no STATUS=, RESULT= or CHECKPOINT=, no line cut, no directive ignored"
                    let output = RunNotesView.failedOutput(last, indent: "  ", width: context.terminalWidth)
                    lines += said.isEmpty && output.isEmpty ? [silent] : said + output
                }
            }
            context.out(lines.joined(separator: "\n"))
            return 0
        })

    /// explain's `now:` line: its live run, then what its next run waits for; else what it waits
    /// for; else why it cannot run; else that nothing is pending.
    static func nowLine(pending: [PendingSummary], runs: [RunRecord], timeline: [TimelineRecord], kind: JobKind?,
                        chainedBy: [String] = [], context: CommandContext) -> String {
        let waiting = pending.first.map { waiting in
            // The agent's text already names the time where the reason has one; a person's or an
            // administrator's hold (disabled, restricted, paused) names none: it lasts until undone.
            let text = WaitingText.local(waiting.waitingFor, code: waiting.reason, until: waiting.until, clock: context.clock)
            let named = text.contains("(")
            // An earliest begin already past (a request's, held now by a condition) says nothing
            // the wait does not: pending shows the wait alone too.
            let earliest = waiting.earliestBegin.flatMap { $0 > Double(context.now) ? $0 : nil }
            return "waiting: \(text)"
                + (named || isUntimedHold(waiting) ? "" : earliest.map { " (earliest \(LocalClockText.text($0, now: Double(context.now))))" } ?? "")
        }
        if let live = runs.first(where: { $0.endedAt == nil }) {
            let started = HumanTime.moment(DisplayClock.floorDivide(live.startedAt, 1000), clock: context.clock)
            let next = pending.first.flatMap { $0.isHeldByItsRun ? nil : waiting }
            return "  now: running (\(live.runID), started \(started))" + (next.map { "; next run \($0)" } ?? "")
        }
        if let waiting { return "  now: " + waiting }
        if let last = timeline.last, last.isNotRegistered { return "  now: \(last.event)" }
        return "  now: not due: nothing pending (it runs \(startedBy(kind, chainedBy: chainedBy)))"
    }

    /// What starts a job that nothing is pending for: a continued job is submitted, another
    /// is requested, triggered or run, or started by the jobs whose `OnSuccess=` name it.
    static func startedBy(_ kind: JobKind?, chainedBy: [String]) -> String {
        let how = kind == .continued ? "when submitted" : kind == nil ? "when requested, triggered or run; a continued job when submitted"
            : "when requested, triggered or run"
        guard !chainedBy.isEmpty else { return how }
        let names = chainedBy.count > 1 ? chainedBy.dropLast().joined(separator: ", ") + " or " + (chainedBy.last ?? "")
            : chainedBy.joined()
        return how + ", and when \(names) succeeds (OnSuccess=)"
    }

    static func change(_ request: ControlRequest, _ context: CommandContext) throws -> Int32 {
        context.out(try context.request(request).done().message)
        return 0
    }

    /// `pending`'s table. EARLIEST is when the entry may start at the earliest: its own earliest
    /// begin, or later the instant its wait names (`interval (earliest 10:18)` is not `now`).
    static func pendingTable(_ items: [PendingSummary], _ context: CommandContext) -> Table {
        Table(columns: [.fixed("IDENTIFIER"), .fixed("KIND"), .fixed("EARLIEST"), "WAITING FOR"],
              rows: items.map { item in
            let starts = isUntimedHold(item) ? nil : [item.earliestBegin, item.until].compactMap { $0 }.max()
            // A request's requirements, as `request` set them (the job's own keys are its file's).
            let needs = item.request.map(EventLine.requirements) ?? []
            return [Table.Cell(item.identifier), Table.Cell(item.kind.rawValue), Table.Cell(earliest(starts, context)),
                    Table.Cell(([WaitingText.local(item.waitingFor, code: item.reason, until: item.until, clock: context.clock)] + needs)
                        .joined(separator: "; "))]
        })
    }

    /// A hold that lasts until someone undoes it (disabled, restricted, paused, the agent
    /// stopping): it has no earliest begin, whatever instant the entry carries.
    static func isUntimedHold(_ item: PendingSummary) -> Bool {
        guard case .known(let code)? = item.reason else { return false }
        return [WaitCode.denied, .restricted, .paused, .agentStopping].contains(code)
    }

    static func earliest(_ time: Double?, _ context: CommandContext) -> String {
        guard let time else { return "-" }
        let delta = Int64(time) - context.now
        return delta <= 0 ? "now" : "in " + HumanTime.span(seconds: delta) + " (\(LocalClockText.text(time, now: Double(context.now))))"
    }
}

/// `agentctl explain --json`.
struct ExplainReport: Codable {
    /// The kind of the job that runs the identifier; absent when no registered job does.
    var kind: JobKind?
    /// The jobs whose `OnSuccess=` start it.
    var chainedBy: [String]
    var timeline: [TimelineRecord]
    var waiting: [PendingSummary]
    var runs: [RunRecord]
}
