// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// Per-run limits for people: which hold on this machine (`status`) and which limit a run
/// reached (`explain`).
enum LimitView {
    /// `limits:   TasksMax enforced (cgroup v1 pids), …`; each limit not enforced on a line of
    /// its own, in the warning colour, with the reason; wrapped to `width` under the label.
    static func statusLines(_ limits: [LimitEnforcement], style: Style, width: Int?) -> [String] {
        let summary = LimitEnforcement.summary(limits)
        var paragraphs: [(text: String, role: Style.Role?)] = []
        if !summary.enforced.isEmpty { paragraphs.append((summary.enforced.joined(separator: ", "), nil)) }
        paragraphs += summary.notEnforced.map { (DisplayText.sanitized($0), .warning) }
        let indent = "          "
        var lines: [String] = []
        for paragraph in paragraphs {
            for line in wrapped(paragraph.text, width: width.map { $0 - indent.count }) {
                lines.append((lines.isEmpty ? "limits:   " : indent) + style.apply(paragraph.role, line))
            }
        }
        return lines
    }

    /// Words of `text` in lines of at most `width` columns (a longer word stands alone).
    static func wrapped(_ text: String, width: Int?) -> [String] {
        guard let width, width > 0 else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if DisplayText.width(current) + 1 + DisplayText.width(String(word)) <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `  r000007 stopped at its limit: TasksMax=20 (the kernel refused 3 forks)` for each
    /// `expired(limit)` run, as the agent named the limit in the run's log tail.
    static func explainLines(_ runs: [RunRecord]) -> [String] {
        runs.filter { $0.stopReason?.known == .expired(.limit) }.map { run in
            let details = RunLimitHit.details(inLogTail: run.logTail)
            let named = details.isEmpty ? "TasksMax= or MemoryMax= (not named in its log tail)" : details.joined(separator: ", ")
            return "  \(run.runID) stopped at its limit: \(DisplayText.sanitized(named))"
        }
    }
}
