// SPDX-License-Identifier: Apache-2.0
/// Whether a user could read a file the agent (root) read for them: a drop-in script's header
/// names files its owner picks, and the agent must not hand that owner what they could not read
/// themselves. The file is theirs or readable by everyone, and every directory on the way to it
/// (links included) theirs with search permission or searchable by everyone. Group permissions
/// are not counted: a file only the owner's group may reach is refused, which errs on the safe
/// side and says so.
public enum OwnerReach {
    /// Why `owner` could not read `source` (walked with every directory), or nil when they could.
    public static func problem(_ source: ConfigSource, owner: UInt32) -> String? {
        if source.facts.ownerUID != owner, !source.facts.isWorldReadable {
            return "not readable by the script's owner"
        }
        for step in source.linkSteps where step.kind == .directory {
            let enterable = step.facts.ownerUID == owner ? step.facts.mode & 0o100 != 0 : step.facts.mode & 0o001 != 0
            if !enterable {
                return "\(step.path) on the way to it is closed to the script's owner (mode \(octal(step.facts.mode & 0o777)))"
            }
        }
        return nil
    }

    private static func octal(_ value: UInt32) -> String {
        let digits = String(value, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
