// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import Glibc

/// Why this user may not connect to a socket, and what would let them: the system agent's socket
/// is open to every local user (mode 0666, DESIGN §9), so a refusal means the socket or a
/// directory on the way to it is another user's. Joining a group helps with neither.
enum SocketAccessAdvice {
    static func text(for path: String) -> String {
        let names = SystemFactsProbe()
        if let closed = firstClosedDirectory(on: path) {
            return "the directory \(closed.path) on the way to it is closed to you (mode "
                + mode(closed.info) + ", \(owner(closed.info, names))): run agentctl as its owner or as root"
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return "run agentctl as root" }
        if info.st_uid != geteuid(), info.st_uid != 0, let name = names.userName(uid: info.st_uid) {
            return "it is \(name)'s (mode \(mode(info))), so only \(name) and root may connect; "
                + "your own agent answers agentctl --user"
        }
        return "its mode \(mode(info)) does not let you write to it: run agentctl as root"
    }

    /// The first directory on `path` this process may not search (`access(X_OK)`, which counts
    /// groups and ACLs as the kernel's connect will).
    private static func firstClosedDirectory(on path: String) -> (path: String, info: stat)? {
        let parts = path.split(separator: "/").dropLast()
        var directory = path.hasPrefix("/") ? "" : "."
        for part in parts {
            directory += "/" + part
            if access(directory, X_OK) != 0 {
                var info = stat()
                return stat(directory, &info) == 0 ? (directory, info) : nil
            }
        }
        return nil
    }

    private static func mode(_ info: stat) -> String { "0" + String(info.st_mode & 0o7777, radix: 8) }

    private static func owner(_ info: stat, _ names: SystemFactsProbe) -> String {
        "owner " + (names.userName(uid: info.st_uid) ?? String(info.st_uid))
    }
}
