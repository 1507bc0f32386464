// SPDX-License-Identifier: Apache-2.0
/// Which agent agentctl talks to (docs/agentctl.md, "Which agent"):
/// 1. `--socket PATH`, then `--user` (`$XDG_RUNTIME_DIR/agentd.sock`), when given;
/// 2. else `AGENTD_SOCKET` when set and not empty;
/// 3. else the per-user agent's socket when the caller is not root and it exists;
/// 4. else the system agent's, `/run/agentd/agentd.sock`.
/// Pure: the environment, the caller and the file system's answer are given.
public enum SocketChoice {
    public static let systemSocket = "/run/agentd/agentd.sock"

    /// The per-user agent's socket, or nil without an absolute `XDG_RUNTIME_DIR`.
    public static func userSocket(environment: [String: String]) -> String? {
        guard var runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        while runtime.count > 1, runtime.hasSuffix("/") { runtime.removeLast() }
        return (runtime == "/" ? "" : runtime) + "/agentd.sock"
    }

    /// The socket when neither `--socket` nor `--user` is given, and whether it is the user agent's.
    public static func implicit(environment: [String: String], isRoot: Bool,
                                exists: (String) -> Bool) -> (path: String, isUserAgent: Bool) {
        if let path = environment["AGENTD_SOCKET"], !path.isEmpty {
            return (path, path == userSocket(environment: environment))
        }
        if !isRoot, let user = userSocket(environment: environment), exists(user) {
            return (user, true)
        }
        return (systemSocket, false)
    }
}
