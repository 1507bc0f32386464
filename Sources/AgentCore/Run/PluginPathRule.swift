// SPDX-License-Identifier: Apache-2.0
/// The rule a plugin must pass at every spawn (DESIGN §3), as sshd's StrictModes applies it: the
/// executable and every directory above it up to `/` are owned by root or the agent's user and
/// writable by nobody else. Anyone who could write one of them could otherwise swap the plugin
/// for their own program and have the agent run it, as root when `User=root`.
///
/// One exception, for directories only: a sticky directory (`/tmp`, mode 1777) owned by root or
/// the agent's user. There the kernel lets only an entry's owner rename or remove it, and the
/// entry below is itself held to the owner rule, so nobody else can replace it.
public enum PluginPathRule {
    /// `S_ISVTX`.
    static let sticky: UInt32 = 0o1000

    /// Why the plugin file with `facts` at `path` may not run, as the text of
    /// `spawn-failed(…)`: `unsafe: PATH is world-writable; run chmod o-w PATH` for a safety
    /// problem, `PATH is not executable; run chmod +x PATH` for a plain mistake. nil when fine.
    public static func fileProblem(_ facts: FileFacts, path: String, agentUID: UInt32,
                                   agentUserName: String) -> String?
    {
        let quoted = TextBytes.shellQuoted(path)
        if let problem = OwnershipRule.problem(with: facts, absolutePath: path, agentUID: agentUID,
                                               agentUserName: agentUserName) {
            return "unsafe: \(quoted) \(problem)"
        }
        let executable = facts.mode & 0o111 != 0
        return OwnershipRule.pluginProblem(.present(facts, executable: executable), path: path,
                                           agentUID: agentUID, agentUserName: agentUserName)
            .map { "\(quoted) \($0)" }
    }

    /// Why the directory with `facts` at `directory`, on the way to the plugin at `plugin`, makes
    /// the plugin unsafe, or nil when it does not. `above`: whether it is one of the directories
    /// the named path itself lies in (else a link's target passes through it).
    public static func directoryProblem(_ facts: FileFacts, directory: String, plugin: String,
                                        agentUID: UInt32, agentUserName: String, above: Bool = true) -> String?
    {
        let trustedOwner = facts.ownerUID == 0 || facts.ownerUID == agentUID
        if trustedOwner && facts.mode & sticky != 0 { return nil }
        let relation = above ? "above" : "on the way to"
        return OwnershipRule.problem(with: facts, absolutePath: directory, agentUID: agentUID,
                                     agentUserName: agentUserName)
            .map { "unsafe: \(TextBytes.shellQuoted(directory)) (\(relation) \(TextBytes.shellQuoted(plugin))) \($0)" }
    }

    /// The directories above the absolute `path`, nearest first, ending with `/`:
    /// `/usr/lib/agentd/x` gives `/usr/lib/agentd`, `/usr/lib`, `/usr`, `/`. Empty components
    /// (`//`) are skipped; `.` and `..` are kept, as the kernel resolves them.
    public static func directories(above path: String) -> [String] {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var directories: [String] = []
        var count = components.count - 1
        while count > 0 {
            directories.append("/" + components.prefix(count).joined(separator: "/"))
            count -= 1
        }
        directories.append("/")
        return directories
    }
}
