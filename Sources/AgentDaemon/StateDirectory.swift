// SPDX-License-Identifier: Apache-2.0
import AgentStore
import AgentSystem
import Glibc

/// The state directory and its SQLite database. A directory that cannot be created or written
/// is not fatal: the agent keeps running with `problem` set (shown in `status`) and retries.
final class StateDirectory {
    let path: String
    private(set) var database: Database?
    private(set) var problem: String?

    init(path: String) {
        self.path = path
    }

    /// A later failure of the open database (read-only, disk full): shown in status until a
    /// write succeeds again.
    func recordProblem(_ message: String) {
        problem = message
    }

    func clearProblem() {
        if database != nil { problem = nil }
    }

    /// Creates the directory if needed and opens the database; returns whether it is usable.
    @discardableResult
    func open() -> Bool {
        if database != nil { return true }
        do {
            try FileSystem.makeDirectories(path, mode: 0o755)
            try FileSystem.makeDirectories(path + "/jobs", mode: 0o755)
            let db = try Database(path: path + "/state.db")
            try Migrations.apply(to: db)
            database = db
            problem = nil
            return true
        } catch {
            problem = "state directory \(path) is not usable: \(error) (check its permissions and free space; agentd retries)"
            return false
        }
    }
}
