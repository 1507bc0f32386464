// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

extension CommandContext {
    /// A long `list` or `pending` answer read page by page (docs/agentctl.md, the control
    /// socket): each page asked for after the last until the agent says none follows. An agent
    /// that does not page answers everything in its first page.
    func allPages<Entry>(_ request: (PageRequest) -> ControlRequest,
                         _ entries: (ControlAnswer) throws(ControlAnswerMismatch) -> [Entry]) throws(CommandFailure) -> [Entry] {
        try PageRequest.readAll { page throws(CommandFailure) in
            let answer = try self.request(request(page))
            do throws(ControlAnswerMismatch) {
                return (try entries(answer), answer.nextOffset)
            } catch {
                throw CommandFailure(error)
            }
        }
    }

    /// Every job the agent has read.
    func allJobs() throws(CommandFailure) -> [JobSummary] {
        try allPages({ .list(page: $0) }, { answer throws(ControlAnswerMismatch) in try answer.jobs() })
    }

    /// The agent's figures, its jobs' read page by page: the first page's figures of the agent
    /// itself, with every page's jobs and their run counts.
    func allMetrics() throws(CommandFailure) -> MetricsSnapshot {
        var merged: MetricsSnapshot?
        _ = try allPages({ .metrics(page: $0) }, { answer throws(ControlAnswerMismatch) -> [Int] in
            let page = try answer.metrics()
            if merged == nil {
                merged = page
            } else {
                merged?.jobs += page.jobs
                merged?.runsEnded += page.runsEnded
            }
            return []
        })
        guard let merged else { throw CommandFailure(ControlAnswerMismatch("the agent's answer to metrics had no metrics")) }
        return merged
    }

    /// Everything that waits.
    func allPending() throws(CommandFailure) -> [PendingSummary] {
        try allPages({ .pending(target: nil, page: $0) }, { answer throws(ControlAnswerMismatch) in try answer.pending() })
    }
}
