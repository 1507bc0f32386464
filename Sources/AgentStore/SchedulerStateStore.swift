/// The scheduler's persisted state as one JSON document (its shape belongs to AgentCore's
/// `PersistedSchedule`; this module only keeps the text).
public struct SchedulerStateStore {
    public let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func save(_ json: String, at time: Int64) throws {
        try database.cached("""
            INSERT INTO scheduler_state (id, snapshot, updated_at) VALUES (1, ?, ?)
            ON CONFLICT(id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at
            """).run([.text(json), .integer(time)])
    }

    public func load() throws -> String? {
        let statement = try database.cached("SELECT snapshot FROM scheduler_state WHERE id = 1")
        defer { statement.reset() }
        try statement.bind([])
        return try statement.step() ? statement.text(0) : nil
    }
}
