// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// How far a pass of the retention rule got.
public struct RetentionPass: Sendable, Equatable {
    /// Runs removed.
    public var removed: Int
    /// Where the next pass starts: after this job (nil: at the first job); `finished` when this
    /// pass reached the last job.
    public var resumeAfter: String?
    public var finished: Bool

    public init(removed: Int, resumeAfter: String?, finished: Bool) {
        self.removed = removed
        self.resumeAfter = resumeAfter
        self.finished = finished
    }
}

extension RunStore {
    /// One pass of `retention` (RunRetention) over the jobs after `after`, in job order: each
    /// job's finished runs that started before `cutoff` and are not among its `keptPerJob`
    /// newest are removed, oldest first. A pass stops after `jobsPerPass` jobs or
    /// `removalsPerPass` removals; every step is an index seek (runs_by_job), so a pass costs
    /// the same however long the history is.
    public func prune(_ retention: RunRetention, cutoff: Int64, after: String?) throws -> RetentionPass {
        var removed = 0
        var resumeAfter = after
        for _ in 0..<retention.jobsPerPass {
            guard let job = try job(after: resumeAfter ?? "") else {
                return RetentionPass(removed: removed, resumeAfter: nil, finished: true)
            }
            let budget = retention.removalsPerPass - removed
            try database.cached("""
                DELETE FROM runs WHERE run_id IN (
                    SELECT run_id FROM runs WHERE job = ?1 AND ended_at IS NOT NULL AND started_at < ?2
                        AND started_at < (SELECT started_at FROM runs WHERE job = ?1
                                          ORDER BY started_at DESC LIMIT 1 OFFSET ?3)
                    ORDER BY started_at LIMIT ?4)
                """).run([.text(job), .integer(cutoff), .integer(Int64(retention.keptPerJob - 1)),
                          .integer(Int64(budget))])
            let changed = database.changedRows
            removed += changed
            // A job left with more to remove is taken up again by the next pass.
            if changed >= budget { break }
            resumeAfter = job
        }
        return RetentionPass(removed: removed, resumeAfter: resumeAfter, finished: false)
    }

    /// The first job after `name` that has runs, in byte order.
    private func job(after name: String) throws -> String? {
        let statement = try database.cached("SELECT job FROM runs WHERE job > ? ORDER BY job LIMIT 1")
        defer { statement.reset() }
        try statement.bind([.text(name)])
        guard try statement.step() else { return nil }
        return statement.text(0)
    }
}
