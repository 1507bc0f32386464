// SPDX-License-Identifier: Apache-2.0
import AgentStore
import AgentSystem

/// The state database operations ``StateWriter`` makes: the port between the durability rules
/// (DESIGN §10) and SQLite. ``SQLiteCommits`` is the real one; daemon scripts wrap it to write
/// each call down and to make writes fail (disk full) on cue.
protocol StateCommitting: AnyObject {
    /// One transaction of `body` on `database`; `label` names it.
    func commit(_ database: Database, durable: Bool, label: String, _ body: (Database) throws -> Void) throws
    /// Writes what waits in `queue`, in order, until a transient failure.
    func drain(_ queue: inout UnwrittenQueue, into database: Database,
               abandoned: (UnwrittenQueue.Entry, StoreError) -> Void) -> (written: Int, error: StoreError?)
    /// Why the file system cannot take a write now (full, read-only), before trying one.
    func spaceProblem(of state: StateDirectory) -> StateProblem?
}

/// The real state database: SQLite transactions and statvfs.
final class SQLiteCommits: StateCommitting {
    func commit(_ database: Database, durable: Bool, label: String, _ body: (Database) throws -> Void) throws {
        try database.transaction(durable: durable) { try body(database) }
    }

    func drain(_ queue: inout UnwrittenQueue, into database: Database,
               abandoned: (UnwrittenQueue.Entry, StoreError) -> Void) -> (written: Int, error: StoreError?) {
        queue.drain(into: database, abandoned: abandoned)
    }

    func spaceProblem(of state: StateDirectory) -> StateProblem? { state.spaceProblem() }
}
