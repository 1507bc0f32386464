// SPDX-License-Identifier: Apache-2.0
import AgentStore
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

/// Small file-system helpers the daemon needs at start-up.
enum FileSystem {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `mkdir -p` with `mode` for the directories it creates.
    static func makeDirectories(_ path: String, mode: mode_t) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0 && errno != EEXIST {
                throw Failure(description: "cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(description: "\(path) is not a directory")
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
