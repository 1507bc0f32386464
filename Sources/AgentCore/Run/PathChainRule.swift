// SPDX-License-Identifier: Apache-2.0
/// Who can change where a path leads (DESIGN §3, issue 28 item 11): every directory it passes
/// through and every symbolic link on the way, each link's target resolved step by step. Anyone
/// but root or the agent's user who owns one of them — or may write a directory among them —
/// could make the path lead to another file: a job file linked through another user's
/// directory, or a plugin path re-pointed to a binary of their choosing.
///
/// A sticky directory (`/tmp`) owned by root or the agent's user passes, as ``PluginPathRule``
/// says: there only an entry's owner can rename or remove it, and the entry itself is held to
/// the rule.
public enum PathChainRule {
    /// The first step that makes `path` unsafe, worded as a refusal (`unsafe: STEP … ; what to
    /// do`), or nil when every step is owned by root or the agent's user and writable by no one
    /// else. `path` is the name as configured (the job file, or `Exec=`'s argv[0]).
    public static func problem(_ steps: [PathStep], path: String, agentUID: UInt32,
                               agentUserName: String) -> String?
    {
        let named = Set(PluginPathRule.directories(above: path))
        for step in steps {
            switch step.kind {
            case .directory:
                if let problem = PluginPathRule.directoryProblem(step.facts, directory: step.path, plugin: path,
                                                                 agentUID: agentUID, agentUserName: agentUserName,
                                                                 above: named.contains(step.path)) {
                    return problem + ownerAdvice(step, agentUID: agentUID, agentUserName: agentUserName)
                }
            case .symbolicLink(let target):
                // A link's own mode means nothing (always 0777); who owns it is what counts.
                let owner = step.facts.ownerUID
                guard owner != 0 && owner != agentUID else { continue }
                let trusted = agentUID == 0 ? "root" : "root or the agent's user \(agentUserName) (uid \(agentUID))"
                return "unsafe: \(TextBytes.shellQuoted(step.path)) (a symbolic link to "
                    + "\(TextBytes.shellQuoted(target)) on the way to \(TextBytes.shellQuoted(path))) is owned by "
                    + "uid \(owner), not \(trusted), so that user could choose which file it leads to; "
                    + (agentUID == 0
                        ? "run chown -h root \(TextBytes.shellQuoted(step.path))"
                        : "as root, run chown -h \(TextBytes.shellQuoted(agentUserName)) \(TextBytes.shellQuoted(step.path)), "
                            + "or replace it with a link of \(agentUserName)'s own")
            }
        }
        return nil
    }

    /// For a per-user agent, a directory of another user cannot be cured with the `chown` the
    /// ownership rule suggests (only root could run it): say what the user can do instead.
    private static func ownerAdvice(_ step: PathStep, agentUID: UInt32, agentUserName: String) -> String {
        let owner = step.facts.ownerUID
        guard agentUID != 0, owner != 0, owner != agentUID else { return "" }
        return ", or keep the file and every link to it in directories of root or \(agentUserName)"
    }
}
