// SPDX-License-Identifier: Apache-2.0
/// cron.d's rule for files the agent trusts: a config file or plugin must not be group- or
/// world-writable, and must be owned by root or by the agent's own user. Anyone who could write
/// such a file could otherwise make the agent run code as another user.
public enum OwnershipRule {
    /// Why a file with `facts` is refused (a phrase following the file's name, such as
    /// `is group-writable; run chmod g-w /etc/agentd/jobs.d/x.job`), or nil when it is
    /// acceptable. `absolutePath` is used in the advice; `agentUID` 0 means only root may own it.
    public static func problem(with facts: FileFacts, absolutePath: String, agentUID: UInt32,
                               agentUserName: String) -> String?
    {
        let path = TextBytes.shellQuoted(absolutePath)
        let group = facts.mode & 0o020 != 0
        let world = facts.mode & 0o002 != 0
        if group || world {
            let (what, flag) = group && world ? ("group- and world-writable", "go-w")
                : group ? ("group-writable", "g-w") : ("world-writable", "o-w")
            return "is \(what); run chmod \(flag) \(path)"
        }
        if facts.ownerUID != 0 && facts.ownerUID != agentUID {
            if agentUID == 0 {
                return "is owned by uid \(facts.ownerUID), not root; run chown root \(path)"
            }
            return "is owned by uid \(facts.ownerUID), not root or the agent's user "
                + "\(agentUserName) (uid \(agentUID)); run chown \(TextBytes.shellQuoted(agentUserName)) \(path)"
        }
        return nil
    }

    /// Whether `facts` describe something other than a regular file. A mode without file-type
    /// bits (as hand-made facts may have) is taken as a regular file.
    static func isKnownNonRegular(_ facts: FileFacts) -> Bool {
        facts.mode & 0o170000 != 0 && !facts.isRegularFile
    }

    /// Checks a plugin executable (`Exec=` argv[0], or a drop-in script): present, a regular
    /// file, executable, and owned and protected by the rule above. Returns a phrase following
    /// the plugin's path, or nil when it is fine.
    public static func pluginProblem(_ status: PluginStatus, path: String, agentUID: UInt32,
                                     agentUserName: String) -> String?
    {
        let quotedPath = TextBytes.shellQuoted(path)
        switch status {
        case .missing:
            return "does not exist; install the plugin or correct the path"
        case .unreadable(let message):
            return "cannot be checked: \(message)"
        case .present(let facts, let executable):
            if isKnownNonRegular(facts) {
                return facts.isDirectory
                    ? "is a directory; name the plugin executable itself"
                    : "is not a regular file; name the plugin executable itself"
            }
            if !executable {
                return "is not executable; run chmod +x \(quotedPath)"
            }
            return problem(with: facts, absolutePath: path, agentUID: agentUID,
                           agentUserName: agentUserName)
        }
    }
}
