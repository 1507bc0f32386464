// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// What `agentctl watch` draws, as a pure function of what the agent answered, the screen size
/// and the clock — so it can be tested line by line.
///
/// ```
/// agentd 0.1.0 · up 3 min 20 s · 1 manifest, 2 jobs · no config problems
/// power ac, battery 80 % (charging) · low power off (auto) · thermal nominal · network up ·
///   pressure none
///
/// Running (1)
///   local.export  r000003  simulated · 12 s · ends in 4 min
///     [##########--------------] 42%  Exporting Photos
///                                     42 of 100 complete
///
/// Waiting: none
///
/// Ctrl-C to quit · every 1 s
/// ```
public enum WatchView {
    /// What the last poll produced.
    public enum Snapshot: Sendable {
        /// The agent answered with its status.
        case status(StatusReport)
        /// Nothing answered at the socket; `lastAnswer` is when something last did (Unix seconds).
        /// `silent`: it takes connections but does not answer (stopped, stuck), rather than
        /// not running at all.
        case unreachable(socketPath: String, lastAnswer: Int64?, silent: Bool = false)
        /// The agent answered with an error (access denied, an incompatible version…).
        case failed(message: String)
    }

    /// The screen as lines, each at most `width` columns (nil: no limit), at most `height` lines
    /// (nil: no limit; the last shown line then says how many were left out). `footer` is the
    /// hint line at the bottom of the live view (nil for plain snapshots).
    /// `finished`: the runs seen to end lately (``WatchFinishedRuns``), shown under the running ones.
    public static func lines(_ snapshot: Snapshot, width: Int?, height: Int?, clock: DisplayClock,
                             footer: String?, finished: [WatchFinishedRuns.Run] = []) -> [StyledText] {
        var lines: [StyledText]
        switch snapshot {
        case .status(let status):
            lines = statusLines(status, width: width, clock: clock, finished: finished)
        case .unreachable(let path, let lastAnswer, let silent):
            lines = [StyledText("agentd is not answering at \(path) (retrying…)", .warning)]
            if let lastAnswer {
                lines.append(StyledText("last answer \(HumanTime.moment(lastAnswer, clock: clock))", .dim))
            }
            lines.append(StyledText(silent
                ? "It takes connections but does not answer: stopped or stuck? See systemctl status agentd and journalctl -u agentd."
                : "Start it with systemctl start agentd, or point --socket at the agent you mean.", .dim))
        case .failed(let message):
            lines = [StyledText(DisplayText.sanitized(message), .error), StyledText("(retrying…)", .dim)]
        }
        if let footer {
            lines += ["", StyledText(footer, .dim)]
        }
        return fit(lines, width: width, height: height)
    }

    /// Cuts every line to `width` and, when there are more than `height` lines, keeps the first
    /// ones and says how many were left out in the last.
    public static func fit(_ lines: [StyledText], width: Int?, height: Int?) -> [StyledText] {
        var lines = lines
        if let height, height > 0, lines.count > height {
            let hidden = lines.count - (height - 1)
            lines = Array(lines.prefix(height - 1))
            lines.append(StyledText("… \(hidden) more lines (a taller terminal shows them; agentctl status lists everything)", .dim))
        }
        return lines.map { line in
            (width.map { line.cut(to: $0) } ?? line).trimmingTrailingSpaces()
        }
    }

    static func statusLines(_ status: StatusReport, width: Int?, clock: DisplayClock,
                            finished: [WatchFinishedRuns.Run] = []) -> [StyledText] {
        let now = clock.nowSeconds
        var lines: [StyledText] = [header(status)]
        if let inputs = status.inputs {
            lines += InputsView.summary(inputs, width: width)
        } else {
            lines.append(StyledText("inputs: not reported by agentd \(status.version)", .dim))
        }
        if let problem = status.stateError {
            lines.append(StyledText("state: \(DisplayText.sanitized(problem))", .error))
        }
        lines.append("")
        if status.running.isEmpty {
            lines.append(StyledText("Running: ", .bold) + StyledText("none", .dim))
        } else {
            lines.append(StyledText("Running (\(status.running.count))", .bold))
            let column = WatchIdentifierColumn(status.running.map(\.identifier), terminal: width)
            for run in status.running {
                lines += runLines(run, column: column, width: width ?? 80, now: now)
            }
        }
        if !finished.isEmpty {
            lines.append("")
            lines.append(StyledText("Finished (last \(WatchFinishedRuns.keptSeconds) s)", .bold))
            let column = WatchIdentifierColumn(finished.map(\.identifier), terminal: width)
            for run in finished {
                lines += finishedLines(run, column: column, nowMilliseconds: clock.now())
            }
        }
        lines.append("")
        if status.pending.isEmpty {
            lines.append(StyledText("Waiting: ", .bold) + StyledText("none", .dim))
        } else {
            lines.append(StyledText("Waiting (\(status.pending.count))", .bold))
            let column = WatchIdentifierColumn(status.pending.map(\.identifier), terminal: width)
            let kindWidth = status.pending.map { DisplayText.width($0.kind.rawValue) }.max() ?? 0
            for pending in status.pending {
                let (above, row) = column.lead(pending.identifier)
                lines += above
                lines.append(row + StyledText("  ")
                    + StyledText(DisplayText.pad(pending.kind.rawValue, to: kindWidth) + "  ", .dim)
                    + StyledText(DisplayText.sanitized(pending.waitingFor), .warning))
            }
        }
        return lines
    }

    /// `agentd 0.1.0 · up 3 min 20 s · 1 manifest, 2 jobs · 2 errors, 1 warning`.
    static func header(_ status: StatusReport) -> StyledText {
        let errors = status.diagnostics.filter { $0.severity == .error }.count
        let warnings = status.diagnostics.filter { $0.severity == .warning }.count
        var text = StyledText("agentd \(status.version)", .bold)
            + StyledText(" · up \(HumanTime.span(seconds: status.uptimeSeconds)) · "
                + "\(DisplayText.plural(status.manifestCount, "manifest")), \(DisplayText.plural(status.jobCount, "job")) · ")
        if errors == 0 && warnings == 0 {
            text += StyledText("no config problems", .success)
        } else {
            if errors > 0 { text += StyledText(DisplayText.plural(errors, "error"), .error) }
            if errors > 0 && warnings > 0 { text += ", " }
            if warnings > 0 { text += StyledText(DisplayText.plural(warnings, "warning"), .warning) }
            text += StyledText(" (agentctl status)", .dim)
        }
        return text
    }

    /// One or two lines per finished run: who, how it ended and when, its title; under it what it
    /// said — a success its `RESULT=`, anything else its last `STATUS=`.
    static func finishedLines(_ run: WatchFinishedRuns.Run, column: WatchIdentifierColumn, nowMilliseconds: Int64) -> [StyledText] {
        let ago = max(0, nowMilliseconds - run.endedAt) / 1000
        let role: Style.Role = run.stopReason == "success" ? .success : run.failed ? .error : .dim
        let (above, row) = column.lead(run.identifier)
        var first = row + StyledText("  \(run.runID)", .dim) + StyledText("  ") + StyledText(DisplayText.sanitized(run.stopReason), role)
            + StyledText(" · \(HumanTime.ago(seconds: ago))", .dim)
        if let title = run.title { first += StyledText("  " + DisplayText.sanitized(title)) }
        let said = run.stopReason == "success" ? run.result.map { "→ " + $0 } : run.status
        guard let said, !said.isEmpty else { return above + [first] }
        let oneLine = DisplayText.sanitized(said.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? "")
        return above + [first, StyledText("    ") + StyledText(oneLine, run.failed ? .error : .dim)]
    }

    /// Two or three lines per run: who, how long and its state (`ends in 4 min`, `expiring`,
    /// `paused: external power`); the progress bar and title; the subtitle and status text,
    /// aligned under the title.
    static func runLines(_ run: RunSummary, column: WatchIdentifierColumn, width: Int, now: Int64) -> [StyledText] {
        let (above, row) = column.lead(run.identifier, .running)
        var first = row + StyledText("  \(run.runID)", .dim) + StyledText("  \(run.reason) · \(HumanTime.span(seconds: now - run.startedAt))")
        let left = StatusCommand.timeLeft(run, now: now)
        if left.text != "-" {
            first += StyledText(" · ") + StyledText(left.role == nil ? "ends \(left.text)" : left.text, left.role)
        }
        let indent = "    "
        let cells = ProgressBar.cells(forLineWidth: width)
        let barWidth = ProgressBar.width(cells: cells)
        var second = StyledText(indent)
        if let progress = run.progress {
            second += StyledText(DisplayText.pad(ProgressBar.render(fraction: progress, cells: cells), to: barWidth))
        } else {
            second += StyledText(DisplayText.pad("no progress reported", to: barWidth), .dim)
        }
        // The title beside the bar, the subtitle and status text under it; without a title they
        // move up beside the bar.
        var detail = [run.subtitle, run.statusText].compactMap { $0 }.map(DisplayText.sanitized).joined(separator: " · ")
        if let title = run.title {
            second += StyledText("  " + DisplayText.sanitized(title))
        } else if !detail.isEmpty {
            second += StyledText("  " + detail, .dim)
            detail = ""
        }
        var lines = [second]
        if !detail.isEmpty {
            lines.append(StyledText(String(repeating: " ", count: indent.count + barWidth + 2)) + StyledText(detail, .dim))
        }
        return above + [first] + lines
    }
}
