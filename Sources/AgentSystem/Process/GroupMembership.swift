// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A group from the group database (`agentd`: who may change the agent, DESIGN §9).
public struct GroupMembership: Sendable, Hashable {
    public var gid: gid_t
    /// Supplementary members by user name.
    public var members: Set<String>

    /// Looks up `name` (getgrnam_r); nil when there is no such group.
    public static func lookup(_ name: String) -> GroupMembership? {
        UserDatabaseBuffer.lookup { buffer, size in
            var entry = group()
            var result: UnsafeMutablePointer<group>?
            let code = getgrnam_r(name, &entry, buffer, size, &result)
            guard code == 0, result != nil else { return (code, nil) }
            var members: Set<String> = []
            var member = entry.gr_mem
            while let pointer = member?.pointee {
                members.insert(String(cString: pointer))
                member = member?.advanced(by: 1)
            }
            return (0, GroupMembership(gid: entry.gr_gid, members: members))
        }
    }

    /// Whether a process with `uid` and primary `gid` belongs to the group: as its primary
    /// group, or as a listed member.
    public func contains(uid: uid_t, gid: gid_t) -> Bool {
        if gid == self.gid { return true }
        guard !members.isEmpty, let name = Self.userName(uid) else { return false }
        return members.contains(name)
    }

    /// The name of the user with `uid`, or nil when the user database has none.
    public static func userName(_ uid: uid_t) -> String? {
        UserDatabaseBuffer.lookup { buffer, size in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let code = getpwuid_r(uid, &entry, buffer, size, &result)
            guard code == 0, result != nil, let name = entry.pw_name else { return (code, nil) }
            return (0, String(cString: name))
        }
    }
}
