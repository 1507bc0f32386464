// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
/// A run's row: the record `history` answers — one type from the store to the socket — and
/// where the run's processes were (DESIGN §10), which only recovery reads. The record's fields
/// read and write through the row (`row.stopReason`).
@dynamicMemberLookup
public struct StoredRun: Sendable, Hashable {
    public var record: RunRecord
    public var processGroup: Int32?
    public var cgroup: String?
    /// The kernel's boot id when the run started: its process group and cgroup mean nothing in
    /// another boot.
    public var bootID: String?
    /// The job the run belongs to, where its identifier is a submission's dynamic one below it
    /// (nil: the identifier is the job's).
    public var job: String?

    /// `logTail`: the lines joined with `\n`, as the column keeps them.
    public init(runID: String, identifier: String, kind: JobKind, reason: RunReason, startedAt: Int64,
                endedAt: Int64? = nil, stopReason: StopReason? = nil, exitStatus: Int32? = nil,
                signal: Int32? = nil, progress: Double? = nil, title: String? = nil,
                logTail: String? = nil, processGroup: Int32? = nil, cgroup: String? = nil,
                bootID: String? = nil, job: String? = nil) {
        record = RunRecord(runID: runID, identifier: identifier, kind: kind, reason: .known(reason), startedAt: startedAt,
                           endedAt: endedAt, stopReason: stopReason.map(Reported.known), exitStatus: exitStatus, signal: signal,
                           progress: progress, title: title, logTail: RunRecord.logLines(logTail))
        self.processGroup = processGroup
        self.cgroup = cgroup
        self.bootID = bootID
        self.job = job == identifier ? nil : job
    }

    init(record: RunRecord, processGroup: Int32?, cgroup: String?, bootID: String?) {
        self.record = record
        self.processGroup = processGroup
        self.cgroup = cgroup
        self.bootID = bootID
    }

    public subscript<Value>(dynamicMember field: WritableKeyPath<RunRecord, Value>) -> Value {
        get { record[keyPath: field] }
        set { record[keyPath: field] = newValue }
    }

    /// The `job` column: the job's identifier, which is the run's own unless it is a dynamic one.
    var storedJob: String { job ?? record.identifier }

    /// The log tail as the column keeps it: lines joined with `\n`; nil when there are none.
    var storedLogTail: String? { record.logTail.isEmpty ? nil : record.logTail.joined(separator: "\n") }
}

/// Runs, checkpoints and per-identifier facts in the state database.
public struct RunStore {
    public let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The highest run number recorded (`r000042` → 42), so numbering continues after a restart.
    public func highestRunNumber() throws -> UInt64 {
        let statement = try database.cached("SELECT MAX(CAST(substr(run_id, 2) AS INTEGER)) FROM runs")
        defer { statement.reset() }
        try statement.bind([])
        guard try statement.step(), !statement.isNull(0) else { return 0 }
        return UInt64(max(0, statement.int64(0)))
    }

    /// Records a run at launch (before any of its output), with where its processes live and in
    /// which boot, so a restarted agent can find and kill leftovers, and its title so far (a
    /// submission's), so a run ended by a crash of the agent keeps it.
    public func insert(_ run: StoredRun) throws {
        try database.cached("""
            INSERT INTO runs (run_id, identifier, kind, reason, started_at, process_group, cgroup,
                              boot_id, title, job)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run([.text(run.runID), .text(run.identifier), .text(run.kind.rawValue), .text(run.reason.description),
                      .integer(run.startedAt), run.processGroup.map { .integer(Int64($0)) },
                      run.cgroup.map { .text($0) }, run.bootID.map { .text($0) },
                      run.title.map { .text($0) }, .text(run.storedJob)])
    }

    /// Records the process group of a live run's current command (each `Exec=` line after the
    /// first starts a session of its own): what a restarted agent kills where there is no cgroup.
    public func recordProcessGroup(_ group: Int32, runID: String) throws {
        try database.cached("UPDATE runs SET process_group = ? WHERE run_id = ? AND ended_at IS NULL")
            .run([.integer(Int64(group)), .text(runID)])
    }

    /// Records a live run's new title (`TITLE=`), so it is kept if the agent dies before the run
    /// ends.
    public func recordTitle(_ title: String?, runID: String) throws {
        try database.cached("UPDATE runs SET title = ? WHERE run_id = ? AND ended_at IS NULL")
            .run([title.map { .text($0) }, .text(runID)])
    }

    /// Records how a run ended; exactly once (a second call for the same run changes nothing).
    /// Creates the row when its launch record never made it to disk (it was dropped from the
    /// queue of unwritten records while the state directory was full), so an end is never lost
    /// for want of its start.
    public func finish(_ run: StoredRun) throws {
        let notes = run.notes
        try database.cached("""
            INSERT INTO runs (run_id, identifier, kind, reason, started_at, ended_at, stop_reason,
                              exit_status, signal, progress, title, log_tail, status_text, result,
                              truncated_lines, invalid_directives, checkpoint_given, checkpoint_left,
                              completed_units, total_units, job)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)
            ON CONFLICT(run_id) DO UPDATE SET ended_at = ?6, stop_reason = ?7, exit_status = ?8,
                signal = ?9, progress = ?10, title = ?11, log_tail = ?12, status_text = ?13,
                result = ?14, truncated_lines = ?15, invalid_directives = ?16,
                checkpoint_given = ?17, checkpoint_left = ?18, completed_units = ?19, total_units = ?20
            WHERE runs.ended_at IS NULL
            """).run([.text(run.runID), .text(run.identifier), .text(run.kind.rawValue), .text(run.reason.description),
                      .integer(run.startedAt), run.endedAt.map { .integer($0) }, run.stopReason.map { .text($0.description) },
                      run.exitStatus.map { .integer(Int64($0)) }, run.signal.map { .integer(Int64($0)) },
                      run.progress.map { .real($0) }, run.title.map { .text($0) },
                      run.storedLogTail.map { .text($0) }, notes.statusText.map { .text($0) },
                      notes.result.map { .text($0) }, notes.truncatedLineCount.map { .integer(Int64($0)) },
                      notes.invalidDirectiveCount.map { .integer(Int64($0)) },
                      notes.checkpointGiven.map { .text($0) }, notes.checkpointLeft.map { .text($0) },
                      run.completedUnitCount.map { .integer($0) }, run.totalUnitCount.map { .integer($0) },
                      .text(run.storedJob)])
    }

    /// Runs that were live when the agent last stopped (no end recorded).
    public func unfinishedRuns() throws -> [StoredRun] {
        try select("WHERE ended_at IS NULL ORDER BY started_at", [])
    }

    /// The most recent runs, newest first, of one identifier or all.
    public func history(identifier: String?, limit: Int) throws -> [StoredRun] {
        if let identifier {
            return try select("WHERE identifier = ? ORDER BY started_at DESC, run_id DESC LIMIT ?",
                              [.text(identifier), .integer(Int64(limit))])
        }
        return try select("ORDER BY started_at DESC, run_id DESC LIMIT ?", [.integer(Int64(limit))])
    }

    /// One page of the history, newest first (start time, then run id): at most `limit` runs of
    /// one identifier (or, `ofJob`, of one job) or all, older than `before` (where the last
    /// run of the previous page stood; nil for the newest). Rows are handed to `visit` one at a time,
    /// and reading stops when it returns false, so a page never holds more rows than its caller
    /// keeps.
    public func historyPage(identifier: String?, before: HistoryPosition?, limit: Int,
                            startedFrom: Int64? = nil, startedBefore: Int64? = nil, ofJob: Bool = false,
                            _ visit: (StoredRun) throws -> Bool) throws {
        var conditions: [String] = []
        var values: [StoreValue?] = []
        if let identifier {
            // `ofJob`: the job's runs, its submissions' dynamic identifiers included.
            conditions.append(ofJob ? "job = ?" : "identifier = ?")
            values.append(.text(identifier))
        }
        // `history --since/--until` (milliseconds): in the query, so a page and its cursor
        // count only the runs shown.
        if let startedFrom {
            conditions.append("started_at >= ?")
            values.append(.integer(startedFrom))
        }
        if let startedBefore {
            conditions.append("started_at < ?")
            values.append(.integer(startedBefore))
        }
        if let before {
            // By position, not by looking the run up: it may have been pruned since.
            conditions.append("(started_at, run_id) < (?, ?)")
            values += [.integer(before.startedAt), .text(before.runID)]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") + " "
        let statement = try database.cached(Self.columns + " " + filter
                                            + "ORDER BY started_at DESC, run_id DESC LIMIT ?")
        defer { statement.reset() }
        try statement.bind(values + [.integer(Int64(max(0, limit)))])
        while try statement.step() {
            guard try visit(Self.row(of: statement, path: database.path)) else { return }
        }
    }

    public func run(_ runID: String) throws -> StoredRun? {
        try select("WHERE run_id = ?", [.text(runID)]).first
    }

    private static let columns = """
        SELECT run_id, identifier, kind, reason, started_at, ended_at, stop_reason, exit_status,
               signal, progress, title, log_tail, process_group, cgroup, boot_id, status_text,
               result, truncated_lines, invalid_directives, checkpoint_given, checkpoint_left,
               completed_units, total_units, job FROM runs
        """

    private func select(_ tail: String, _ values: [StoreValue?]) throws -> [StoredRun] {
        let statement = try database.cached(Self.columns + " " + tail)
        try statement.bind(values)
        var rows: [StoredRun] = []
        while try statement.step() {
            rows.append(try Self.row(of: statement, path: database.path))
        }
        return rows
    }

    /// The current row of a statement that selects `columns`, its texts parsed once here.
    ///
    /// A start or stop reason this build does not know (a newer agentd wrote the row, and this
    /// one runs after a downgrade) is kept as its text, as agentctl keeps one it reads; a job
    /// kind it does not know fails the read, naming the run and the value (there are three
    /// kinds, DESIGN §4: such a row is not this agent's).
    private static func row(of statement: Statement, path: String) throws -> StoredRun {
        func optionalInt(_ column: Int32) -> Int64? { statement.isNull(column) ? nil : statement.int64(column) }
        let runID = statement.text(0) ?? ""
        func unreadable(_ column: String, _ text: String?) -> StoreError {
            StoreError(operation: "read run \(runID)", path: path, code: 0,
                       message: "\(column) \"\(text ?? "")\" is not one this agentd knows (a newer agentd wrote it?)")
        }
        guard let kind = statement.text(2).flatMap(JobKind.init(rawValue:)) else {
            throw unreadable("kind", statement.text(2))
        }
        let record = RunRecord(
            runID: runID, identifier: statement.text(1) ?? "", kind: kind,
            reason: Reported(text: statement.text(3) ?? ""), startedAt: statement.int64(4), endedAt: optionalInt(5),
            stopReason: statement.text(6).map(Reported.init(text:)),
            exitStatus: optionalInt(7).map { Int32(truncatingIfNeeded: $0) },
            signal: optionalInt(8).map { Int32(truncatingIfNeeded: $0) },
            progress: statement.isNull(9) ? nil : statement.double(9), title: statement.text(10),
            logTail: RunRecord.logLines(statement.text(11)))
        var run = StoredRun(record: record, processGroup: optionalInt(12).map { Int32(truncatingIfNeeded: $0) },
                            cgroup: statement.text(13), bootID: statement.text(14))
        run.notes = RunNotes(
            statusText: statement.text(15), result: statement.text(16),
            truncatedLineCount: optionalInt(17).map { Int(clamping: $0) },
            invalidDirectiveCount: optionalInt(18).map { Int(clamping: $0) },
            checkpointGiven: statement.text(19), checkpointLeft: statement.text(20))
        run.completedUnitCount = optionalInt(21)
        run.totalUnitCount = optionalInt(22)
        if let job = statement.text(23), job != record.identifier { run.job = job }
        return run
    }

    // MARK: checkpoints

    public func saveCheckpoint(_ value: String, identifier: String, at time: Int64) throws {
        try database.cached("""
            INSERT INTO checkpoints (identifier, value, updated_at) VALUES (?, ?, ?)
            ON CONFLICT(identifier) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
            """).run([.text(identifier), .text(value), .integer(time)])
    }

    public func checkpoint(identifier: String) throws -> String? {
        let statement = try database.cached("SELECT value FROM checkpoints WHERE identifier = ?")
        defer { statement.reset() }
        try statement.bind([.text(identifier)])
        return try statement.step() ? statement.text(0) : nil
    }

    // MARK: per-identifier facts

    /// Unix milliseconds of the last successful run, if any.
    public func lastSuccess(identifier: String) throws -> Int64? {
        let statement = try database.cached("SELECT last_success_at FROM job_facts WHERE identifier = ?")
        defer { statement.reset() }
        try statement.bind([.text(identifier)])
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// Records a run's end in the identifier's facts: last run, last success, consecutive
    /// failures (reset by a success). Returns the consecutive failure count after this run.
    @discardableResult
    public func recordOutcome(identifier: String, at time: Int64, success: Bool) throws -> Int {
        try database.cached("""
            INSERT INTO job_facts (identifier, last_run_at, last_success_at, consecutive_failures)
            VALUES (?1, ?2, CASE WHEN ?3 THEN ?2 END, CASE WHEN ?3 THEN 0 ELSE 1 END)
            ON CONFLICT(identifier) DO UPDATE SET
                last_run_at = ?2,
                last_success_at = CASE WHEN ?3 THEN ?2 ELSE last_success_at END,
                consecutive_failures = CASE WHEN ?3 THEN 0 ELSE consecutive_failures + 1 END
            """).run([.text(identifier), .integer(time), .integer(success ? 1 : 0)])
        let statement = try database.cached("SELECT consecutive_failures FROM job_facts WHERE identifier = ?")
        defer { statement.reset() }
        try statement.bind([.text(identifier)])
        return try statement.step() ? Int(statement.int64(0)) : 0
    }
}
