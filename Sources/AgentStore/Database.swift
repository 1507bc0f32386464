// SPDX-License-Identifier: Apache-2.0
import CSQLite

/// One SQLite connection in WAL mode. Not thread-safe by design: the agent's single event loop
/// owns it. No C type leaves this module.
public final class Database {
    public let path: String
    private var handle: OpaquePointer?
    /// Statements the agent runs again and again (one per run launched and ended), compiled once.
    private var cache: [String: Statement] = [:]

    /// Opens (creating if needed) the database at `path`, switches it to WAL and applies
    /// `busy_timeout` so a concurrent reader (agentctl check, sqlite3 shell) never fails us.
    public init(path: String) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot allocate"
            sqlite3_close(db)
            throw StoreError(operation: "open", path: path, code: rc, message: message)
        }
        handle = db
        sqlite3_busy_timeout(db, 2000)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Like `prepare`, but keeps the compiled statement for the next call with the same SQL.
    /// Bind replaces all parameters, so a cached statement carries nothing over.
    public func cached(_ sql: String) throws -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw StoreError(operation: "execute \(sql.prefix(60))", path: path, code: rc, message: message)
        }
    }

    /// Prepares a statement; bind values and step it through `Statement`.
    public func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw StoreError(operation: "prepare \(sql.prefix(60))", path: path, code: rc, message: lastMessage)
        }
        return Statement(database: self, handle: statement)
    }

    /// Runs `body` inside one transaction, rolling back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The journal mode SQLite reports (`wal` once opened).
    public func journalMode() throws -> String {
        let statement = try prepare("PRAGMA journal_mode")
        return try statement.step() ? statement.text(0) ?? "" : ""
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ operation: String, _ rc: Int32) -> StoreError {
        StoreError(operation: operation, path: path, code: rc, message: lastMessage)
    }
}
