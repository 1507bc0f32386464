// SPDX-License-Identifier: Apache-2.0
/// run-parts' rules for drop-in scripts (DESIGN §3): which names run, and as whom.
extension DropInScript {
    /// Debian run-parts' rule without `--lsbsysinit`, as a pattern for messages.
    public static let nameRule = "^[A-Za-z0-9_-]+$"

    /// Whether `fileName` matches `nameRule`: a renamed copy (`backup.disabled`, `x.bak`,
    /// `x.orig`, `x.save`, `x.sh`) does not, so renaming a script disables it as in cron.daily.
    public static func hasRunPartsName(_ fileName: String) -> Bool {
        !fileName.isEmpty && fileName.utf8.allSatisfy { byte in
            TextBytes.isDigit(byte) || byte == 0x5F || byte == 0x2D
                || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
    }

    /// The warning for an executable file in `jobs.d/` whose name breaks `nameRule`.
    static func nameWarning(path: String) -> ConfigDiagnostic {
        ConfigDiagnostic(
            path: path, severity: .warning,
            message: "ignored: a drop-in script's name must match \(nameRule) (run-parts' rule: letters, "
                + "digits, _ and - only), so renamed copies such as backup.disabled or x.bak never run; "
                + "rename it to run it as local.NAME, or name a job definition NAME.job")
    }

    /// cron.d's rule for a drop-in script, as for any config file, except that an agent running
    /// as root accepts a script owned by any user: it runs as that user, who could write it
    /// anyway. Group- and world-writable scripts are always refused.
    static func ownershipProblem(_ facts: FileFacts, absolutePath: String,
                                 context: ConfigContext) -> String?
    {
        OwnershipRule.problem(
            with: facts, absolutePath: absolutePath,
            agentUID: context.privileged ? facts.ownerUID : context.agentUID,
            agentUserName: context.agentUserName)
    }

    /// Sets `definition.user` to the user a privileged agent runs the script as: its file's
    /// owner unless the header names `User=`; only a root-owned script may name another user.
    /// Returns an error message (for the header's `User=` line or the file), or nil.
    static func resolveUser(_ definition: inout JobDefinition, ownerUID: UInt32,
                            context: ConfigContext, facts: some SystemFacts) -> String?
    {
        guard context.privileged else { return nil }
        guard let owner = facts.userName(uid: ownerUID) else {
            return "is owned by uid \(ownerUID), which has no user name, and a drop-in script runs "
                + "as its owner; run chown with the user it should run as (or root)"
        }
        guard let named = definition.user else {
            definition.user = owner
            return nil
        }
        if ownerUID == 0 || named == owner || named == String(ownerUID) { return nil }
        return "User: \(TextBytes.quoted(named)) cannot be used: this drop-in script is owned by "
            + "\(owner) and runs only as its owner (whoever may write it could otherwise run code "
            + "as \(named)); remove User=, or run chown root on the script"
    }

    /// The header settings that would give a script owned by another user than root more
    /// than that user has: whoever may write the script could raise its priority above other
    /// users' work (#28 item 4). Errors at the header's line.
    static func privilegeProblems(_ priority: RunPriority, reader: KeyReader, path: String,
                                  owner: String) -> [ConfigDiagnostic]
    {
        var problems: [ConfigDiagnostic] = []
        let advice = "only a script owned by root may raise its priority; remove the setting or run chown root on the script"
        if let nice = priority.nice, nice < 0 {
            problems.append(ConfigDiagnostic(
                path: path, line: reader.assignment("Nice")?.line,
                message: "Nice: \(nice) is below 0 and this drop-in script is owned by \(owner); \(advice) (0 to 19 are allowed)"))
        }
        if let weight = priority.cpuWeight, weight > RunPriority.defaultCPUWeight {
            problems.append(ConfigDiagnostic(
                path: path, line: reader.assignment("CPUWeight")?.line,
                message: "CPUWeight: \(weight) is above the default \(RunPriority.defaultCPUWeight) and this drop-in "
                    + "script is owned by \(owner); \(advice) (1 to \(RunPriority.defaultCPUWeight) are allowed)"))
        }
        if priority.ioClass != .idle, priority.ioLevel == 0 {
            problems.append(ConfigDiagnostic(
                path: path, line: reader.assignment("IOSchedulingPriority")?.line,
                message: "IOSchedulingPriority: 0 is best-effort's highest level and this drop-in script is owned by "
                    + "\(owner); \(advice) (1 to 7, or IOSchedulingClass=idle, are allowed)"))
        }
        return problems
    }
}
