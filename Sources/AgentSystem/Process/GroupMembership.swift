// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A group from the group database (`agentd`: who may change the agent, DESIGN §9).
public struct GroupMembership: Sendable, Hashable {
    public var gid: gid_t
    /// Supplementary members by user name.
    public var members: Set<String>

    /// Looks up `name` (getgrnam_r); nil when there is no such group.
    public static func lookup(_ name: String) -> GroupMembership? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 64 * 1024)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        var members: Set<String> = []
        var member = entry.gr_mem
        while let pointer = member?.pointee {
            members.insert(String(cString: pointer))
            member = member?.advanced(by: 1)
        }
        return GroupMembership(gid: entry.gr_gid, members: members)
    }

    /// Whether a process with `uid` and primary `gid` belongs to the group: as its primary
    /// group, or as a listed member.
    public func contains(uid: uid_t, gid: gid_t) -> Bool {
        if gid == self.gid { return true }
        guard !members.isEmpty, let name = Self.userName(uid) else { return false }
        return members.contains(name)
    }

    private static func userName(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil,
              let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
}
