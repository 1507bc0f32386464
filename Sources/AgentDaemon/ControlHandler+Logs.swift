// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore

/// `logs ID|RUN` (DESIGN §8, `journalctl -u`'s habit): the output lines runs kept — the bounded
/// tail each run record carries, a live run's from memory — newest run last. The lines are in
/// each `RunRecord.logTail` of `ControlResponse.runs`, where every run record's output is.
extension ControlHandler {
    /// Lines answered when the request names no limit.
    static let defaultLogLines = 1_000
    /// Runs looked at for one answer at most, lines or not: a job with 100,000 silent runs costs
    /// one bounded stretch of the loop, and the answer says where to go on.
    static let maxRunsScanned = 2_000

    func logs(_ request: LogsQuery) -> ControlResponse {
        let target = request.target
        guard state.database != nil else {
            return .failure(.unavailable, state.problem ?? "the state database is not open")
        }
        // Lines read before this answer go out as events before it (`logs -f` subscribes first
        // and skips what came before the answer: those lines are in it).
        events.flushPending()
        let wanted = max(1, request.limit ?? Self.defaultLogLines)
        do {
            // On the loop, holding the writer's connection: waits only while a write job runs.
            let answer = try state.reading { store in try logs(of: target, wanted: wanted, request, store) }
            return answer ?? .failure(.unavailable, state.problem ?? "the state database is not open")
        } catch {
            return readFailed("reading the runs' output", error)
        }
    }

    private func logs(of target: String, wanted: Int, _ request: LogsQuery, _ store: RunStore) throws -> ControlResponse {
        var page = HistoryPage(limit: HistoryPage.maxRows)
        var lines = 0
        do {
            if let run = RunID(parsing: target) {
                guard let row = try store.run(run.description) else {
                    return .failure(.notFound, "no run \(run) (agentctl history lists runs; a run id looks like r000042)")
                }
                var record = withLiveTail(row.record)
                record.logTail = Array(record.logTail.suffix(wanted))
                _ = page.add(record)
                return .success(.logs(page.records, nextCursor: nil, sequence: events.lastSequence))
            }
            guard let id = Identifier(rawValue: target) else {
                return .failure(.badRequest, Self.notAnIdentifier(target))
            }
            var before: HistoryPosition?
            if let cursor = request.cursor {
                guard let position = try store.position(of: cursor) else {
                    return .failure(.badRequest, "logs: no run \(cursor) to continue after (pass the nextCursor of the previous answer)")
                }
                before = position
            }
            var scanned = 0
            var lastScanned: RunCursor?
            var full = false
            try store.historyPage(identifier: id.rawValue, before: before, limit: Self.maxRunsScanned,
                                  ofJob: isJob(id)) { row in
                scanned += 1
                lastScanned = RunCursor(row.record)
                var record = withLiveTail(row.record)
                guard !record.logTail.isEmpty else { return true }
                record.logTail = Array(record.logTail.suffix(wanted - lines))
                guard page.add(record) else {
                    full = true
                    return false
                }
                lines += page.records.last?.logTail.count ?? 0
                return lines < wanted
            }
            // A typo is no empty log: say so, with the likely job.
            if scanned == 0, request.cursor == nil, !isKnown(id) {
                return .failure(.notFound, noJob(id))
            }
            // Where to go on: after the last run answered when the page filled, after the last
            // run looked at when the scan limit ended it.
            let next = full ? page.nextCursor : (scanned == Self.maxRunsScanned && lines < wanted ? lastScanned : nil)
            // Oldest run first, as journalctl prints.
            return .success(.logs(page.records.reversed(), nextCursor: next, sequence: events.lastSequence))
        }
    }

    /// A live run's record has no tail yet (it is written at the run's end): its lines so far
    /// come from memory.
    private func withLiveTail(_ record: RunRecord) -> RunRecord {
        guard record.endedAt == nil, let run = RunID(parsing: record.runID), let live = runs.run(run) else { return record }
        var record = record
        record.logTail = live.state.logTail.lines
        return record
    }
}
