// SPDX-License-Identifier: Apache-2.0
/// Who else may change a config directory. Nothing they add is trusted (a file they own is
/// refused by `OwnershipRule`), but without the sticky bit they can remove or rename the files
/// in it: take a job away, or swap two. So it is a warning, not a refusal.
public enum ConfigDirectoryRule {
    /// The warning for the directory at `absolutePath` with `facts`, or nil when only root or
    /// the agent's user can change what it holds. The diagnostic names it by `relativePath`
    /// (relative to the config directory, `.` for itself, as every diagnostic's path is:
    /// docs/json.md); its advice names the whole path, to be run as written.
    public static func warning(facts: FileFacts, relativePath: String, absolutePath: String,
                               context: ConfigContext) -> ConfigDiagnostic? {
        guard facts.isDirectory else { return nil }
        let path = TextBytes.shellQuoted(absolutePath)
        let group = facts.mode & 0o020 != 0
        let world = facts.mode & 0o002 != 0
        let sticky = facts.mode & 0o1000 != 0
        if (group || world) && !sticky {
            let (what, flag) = group && world ? ("group- and world-writable", "go-w")
                : group ? ("group-writable", "g-w") : ("world-writable", "o-w")
            return ConfigDiagnostic(path: relativePath, severity: .warning,
                                    message: "is \(what), so others can remove or rename the files in it; "
                                        + "run chmod \(flag) \(path)")
        }
        if facts.ownerUID != 0 && facts.ownerUID != context.agentUID {
            return ConfigDiagnostic(path: relativePath, severity: .warning,
                                    message: "is owned by uid \(facts.ownerUID), who can remove or rename the files in it; "
                                        + "run chown \(context.agentUID == 0 ? "root" : TextBytes.shellQuoted(context.agentUserName)) \(path)")
        }
        return nil
    }
}
