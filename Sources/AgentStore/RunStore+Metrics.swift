// SPDX-License-Identifier: Apache-2.0
/// The reads the metrics need, each one query however many jobs there are.
extension RunStore {
    /// Unix milliseconds of every identifier's last success (`job_facts`).
    public func lastSuccesses() throws -> [String: Int64] {
        try timePerIdentifier("SELECT identifier, last_success_at FROM job_facts WHERE last_success_at IS NOT NULL")
    }

    /// Unix milliseconds of the first recorded run's start of every identifier that has run
    /// (`job_facts`): one seek of the (identifier, started_at) index each, where grouping the runs
    /// would read every run ever recorded, on the loop.
    public func firstRunStarts() throws -> [String: Int64] {
        try timePerIdentifier("""
            SELECT identifier, first FROM (SELECT identifier,
                (SELECT MIN(started_at) FROM runs WHERE runs.identifier = job_facts.identifier) AS first
                FROM job_facts) WHERE first IS NOT NULL
            """)
    }

    /// The rows of `sql` (an identifier, then an integer) as a dictionary.
    private func timePerIdentifier(_ sql: String) throws -> [String: Int64] {
        let statement = try database.cached(sql)
        defer { statement.reset() }
        try statement.bind([])
        var result: [String: Int64] = [:]
        while try statement.step() {
            if let identifier = statement.text(0) { result[identifier] = statement.int64(1) }
        }
        return result
    }

    /// Start times (Unix milliseconds, ascending) of the successful runs that started at or after
    /// `since`, per identifier.
    public func successStarts(since: Int64) throws -> [String: [Int64]] {
        let statement = try database.cached("""
            SELECT identifier, started_at FROM runs
            WHERE started_at >= ? AND stop_reason = 'success' ORDER BY started_at, run_id
            """)
        defer { statement.reset() }
        try statement.bind([.integer(since)])
        var result: [String: [Int64]] = [:]
        while try statement.step() {
            if let identifier = statement.text(0) { result[identifier, default: []].append(statement.int64(1)) }
        }
        return result
    }
}
