// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// What a run said, for people: the lines under its row in `history -v` and under "Last run" in
/// `explain` — its last status text, its result, the checkpoint it was given and the one it left,
/// and what of its output was cut or ignored. Only what was recorded is shown.
enum RunNotesView {
    /// One `label: value` line per recorded note, each cut to `width` (a result may be 4 KiB).
    static func lines(_ notes: RunNotes, indent: String, width: Int?) -> [String] {
        var pairs: [(String, String)] = []
        if let status = notes.statusText { pairs.append(("status", status)) }
        if let result = notes.result { pairs.append(("result", result.isEmpty ? "(empty)" : result)) }
        if let checkpoint = checkpointText(given: notes.checkpointGiven, left: notes.checkpointLeft) {
            pairs.append(("checkpoint", checkpoint))
        }
        var output: [String] = []
        if let cut = notes.truncatedLineCount, cut > 0 {
            output.append(DisplayText.plural(cut, "line") + " cut at 4096 bytes")
        }
        if let invalid = notes.invalidDirectiveCount, invalid > 0 {
            output.append(DisplayText.plural(invalid, "invalid directive") + " ignored")
        }
        if !output.isEmpty { pairs.append(("output", output.joined(separator: ", "))) }
        return pairs.map { label, value in
            let tag = label + ":"
            let line = indent + tag + String(repeating: " ", count: max(1, 12 - tag.count))
                + DisplayText.sanitized(value)
            return width.map { DisplayText.cut(line, to: $0) } ?? line
        }
    }

    /// Lines of a failed run's output shown under it (the rest: `agentctl logs RUN`).
    static let failedOutputLines = 5

    /// The last lines a run that did not succeed wrote, under a `log:` label (`history -v`,
    /// `explain`); nothing for a success, a live run, or a run that kept no output.
    static func failedOutput(_ run: RunRecord, indent: String, width: Int?) -> [String] {
        guard let stop = run.stopReason, stop.known != .success, !run.logTail.isEmpty else { return [] }
        let shown = run.logTail.suffix(failedOutputLines)
        let pad = String(repeating: " ", count: 12)
        var lines: [String] = []
        if run.logTail.count > shown.count {
            lines.append(indent + "log:" + String(repeating: " ", count: 8)
                + "… last \(shown.count) of \(run.logTail.count) lines (agentctl logs \(DisplayText.sanitized(run.runID)))")
        }
        for (index, text) in shown.enumerated() {
            let label = lines.isEmpty && index == 0 ? "log:" + String(repeating: " ", count: 8) : pad
            lines.append(indent + label + DisplayText.sanitized(text))
        }
        return lines.map { line in width.map { DisplayText.cut(line, to: $0) } ?? line }
    }

    /// `batch-1 → batch-2`, `batch-1 (kept)`, `none → batch-1`; nil when it had none and left none.
    private static func checkpointText(given: String?, left: String?) -> String? {
        switch (given, left) {
        case (nil, nil): return nil
        case (let given?, let left?) where given == left: return quoted(given) + " (kept)"
        default: return (given.map(quoted) ?? "none") + " → " + (left.map(quoted) ?? "none")
        }
    }

    /// An empty checkpoint is a checkpoint: shown as `""` rather than as nothing.
    private static func quoted(_ text: String) -> String { text.isEmpty ? "\"\"" : text }
}
