// SPDX-License-Identifier: Apache-2.0
/// The scheduler's persisted state: the agent-wide part as one JSON document in
/// `scheduler_state`, and one JSON row per identifier in `schedule_entries` (their shapes belong
/// to AgentCore's `PersistedSchedule` and `IdentifierSchedule`; this module keeps the text).
public struct SchedulerStateStore {
    public let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Writes the agent-wide document and the changed rows (nil text deletes a row) in one
    /// transaction.
    public func save(globals json: String, rows: [(identifier: String, state: String?)], at time: Int64) throws {
        try database.transaction { try write(globals: json, rows: rows, at: time) }
    }

    /// Like `save`, inside the caller's transaction.
    public func write(globals json: String, rows: [(identifier: String, state: String?)], at time: Int64) throws {
        try database.cached("""
            INSERT INTO scheduler_state (id, snapshot, updated_at) VALUES (1, ?, ?)
            ON CONFLICT(id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at
            """).run([.text(json), .integer(time)])
        let upsert = try database.cached("""
            INSERT INTO schedule_entries (identifier, state) VALUES (?, ?)
            ON CONFLICT(identifier) DO UPDATE SET state = excluded.state
            """)
        let delete = try database.cached("DELETE FROM schedule_entries WHERE identifier = ?")
        for row in rows {
            if let state = row.state {
                try upsert.run([.text(row.identifier), .text(state)])
            } else {
                try delete.run([.text(row.identifier)])
            }
        }
    }

    /// The agent-wide document (before schema 3 it held every per-identifier map too).
    public func load() throws -> String? {
        let statement = try database.cached("SELECT snapshot FROM scheduler_state WHERE id = 1")
        defer { statement.reset() }
        try statement.bind([])
        return try statement.step() ? statement.text(0) : nil
    }

    /// Every per-identifier row.
    public func loadRows() throws -> [(identifier: String, state: String)] {
        let statement = try database.cached("SELECT identifier, state FROM schedule_entries")
        defer { statement.reset() }
        try statement.bind([])
        var rows: [(String, String)] = []
        while try statement.step() {
            rows.append((statement.text(0) ?? "", statement.text(1) ?? ""))
        }
        return rows
    }
}
