// SPDX-License-Identifier: Apache-2.0
/// Who a plugin's job runs as, for ``PluginAccess``: the user's uid and every group it has.
public struct UserIdentity: Sendable, Hashable {
    public var uid: UInt32
    public var groups: [UInt32]

    public init(uid: UInt32, groups: [UInt32]) {
        self.uid = uid
        self.groups = groups
    }
}

/// Whether a job's user may run its plugin (issue 26 item 1): a converted job that names
/// `User=` should not fail at every run with `Permission denied`. The permission bits that
/// apply to the user as the kernel picks them (owner, else group, else others) must allow
/// reading (a `#!` script's interpreter reads it) and executing; root needs only an execute bit.
/// The directories on the way are not looked at.
public enum PluginAccess {
    public static func problem(_ file: FileFacts, user: UserIdentity, userName: String) -> String? {
        let mode = file.mode & 0o777
        if user.uid == 0 {
            return mode & 0o111 != 0 ? nil : "is executable by nobody, so User=\(userName) cannot run it"
        }
        let bits: UInt32
        let whose: String
        if file.ownerUID == user.uid {
            bits = (mode >> 6) & 0o7
            whose = "its owner"
        } else if user.groups.contains(file.groupID) {
            bits = (mode >> 3) & 0o7
            whose = "its group"
        } else {
            bits = mode & 0o7
            whose = "others"
        }
        guard bits & 0o5 != 0o5 else { return nil }
        let missing = [bits & 0o4 == 0 ? "read" : nil, bits & 0o1 == 0 ? "executed" : nil].compactMap { $0 }
        return "cannot be \(missing.joined(separator: " and ")) by User=\(userName) (mode \(String(mode, radix: 8)) "
            + "for \(whose)); the job would fail with Permission denied (chmod o+rx, or change its group)"
    }
}
