// SPDX-License-Identifier: Apache-2.0
/// The schema, as an ordered list of migrations. `PRAGMA user_version` records how many have
/// been applied; each runs once, in a transaction. Append; never edit a shipped one.
public enum Migrations {
    public static let all: [String] = [
        // 1: runs, pending requests, checkpoints, per-identifier facts, the budget ledger.
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            identifier TEXT NOT NULL,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            started_at INTEGER NOT NULL,
            ended_at INTEGER,
            stop_reason TEXT,
            exit_status INTEGER,
            signal INTEGER,
            progress REAL,
            title TEXT,
            subtitle TEXT,
            status_text TEXT,
            log_tail TEXT,
            process_group INTEGER,
            cgroup TEXT
        );
        CREATE INDEX runs_by_identifier ON runs(identifier, started_at);
        CREATE TABLE pending (
            request_id INTEGER PRIMARY KEY AUTOINCREMENT,
            identifier TEXT NOT NULL,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            earliest_begin INTEGER,
            payload TEXT
        );
        CREATE TABLE checkpoints (
            identifier TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE job_facts (
            identifier TEXT PRIMARY KEY,
            last_run_at INTEGER,
            last_success_at INTEGER,
            consecutive_failures INTEGER NOT NULL DEFAULT 0,
            disabled INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE budget_ledger (
            day TEXT PRIMARY KEY,
            launches INTEGER NOT NULL
        );
        """,
        // 2: the scheduler's own state (pending triggers and submissions, last runs, budget,
        // disabled identifiers, pause), one JSON document written in one statement.
        """
        CREATE TABLE scheduler_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            snapshot TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );
        """,
        // 3: one row per identifier, so an event writes what it touched (scheduler_state keeps
        // the agent-wide part).
        """
        CREATE TABLE schedule_entries (
            identifier TEXT PRIMARY KEY,
            state TEXT NOT NULL
        );
        """,
        // 4: history pages walk this index from a run-id cursor instead of sorting every run
        // (and reading every log tail) per page.
        """
        CREATE INDEX runs_by_start ON runs(started_at, run_id);
        """,
        // 5: the boot a run was started in (/proc/sys/kernel/random/boot_id), so a restarted
        // agent kills a live run's leftovers only when they can still be its own: a process
        // group number recorded before a reboot names somebody else's processes.
        """
        ALTER TABLE runs ADD COLUMN boot_id TEXT;
        """,
        // 6: what a run said, kept with its end (DESIGN §10): its RESULT=, the count of lines cut
        // at 4096 bytes and of invalid directives, the checkpoint it was given and the one it
        // left (`status_text` is in the first schema). Older rows keep NULL: not recorded.
        """
        ALTER TABLE runs ADD COLUMN result TEXT;
        ALTER TABLE runs ADD COLUMN truncated_lines INTEGER;
        ALTER TABLE runs ADD COLUMN invalid_directives INTEGER;
        ALTER TABLE runs ADD COLUMN checkpoint_given TEXT;
        ALTER TABLE runs ADD COLUMN checkpoint_left TEXT;
        """,
        // 7: `PROGRESS=N/M` keeps its units (issue 27): completedUnitCount/totalUnitCount beside
        // the fraction. NULL for `N%` and for older rows.
        """
        ALTER TABLE runs ADD COLUMN completed_units INTEGER;
        ALTER TABLE runs ADD COLUMN total_units INTEGER;
        """,
        // 8: the job a run belongs to, which a submission's dynamic identifier only extends
        // (`….export.Holidays` of `….export`), so `history`/`logs` of the job find its runs
        // through an index in start order. Older rows: their own identifier.
        """
        ALTER TABLE runs ADD COLUMN job TEXT;
        UPDATE runs SET job = identifier;
        CREATE INDEX runs_by_job ON runs(job, started_at);
        """,
    ]

    /// Applies every migration the database has not seen. Returns the resulting version.
    @discardableResult
    public static func apply(to database: Database) throws -> Int {
        let version = try currentVersion(of: database)
        guard version <= all.count else {
            throw StoreError(operation: "migrate", path: database.path, code: 0,
                             message: "schema version \(version) is newer than this agentd knows (\(all.count)); upgrade agentd or move the state directory aside")
        }
        for index in version..<all.count {
            try database.transaction {
                try database.execute(all[index])
                try database.execute("PRAGMA user_version = \(index + 1)")
            }
        }
        return all.count
    }

    public static func currentVersion(of database: Database) throws -> Int {
        let statement = try database.prepare("PRAGMA user_version")
        return try statement.step() ? Int(statement.int64(0)) : 0
    }
}
