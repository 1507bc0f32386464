// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A user a plugin runs as: uid, primary gid, supplementary groups, home — resolved once at
/// launch from the user database.
public struct UserAccount: Sendable, Hashable {
    public var name: String
    public var uid: uid_t
    public var gid: gid_t
    public var groups: [gid_t]
    public var home: String

    public init(name: String, uid: uid_t, gid: gid_t, groups: [gid_t], home: String) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.home = home
    }

    /// Looks up `name` (getpwnam_r, getgrouplist); nil when there is no such user.
    public static func lookup(_ name: String) -> UserAccount? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let rc = getpwnam_r(name, &entry, &buffer, buffer.count, &result)
        guard rc == 0, result != nil else { return nil }
        let uid = entry.pw_uid
        let gid = entry.pw_gid
        let home = entry.pw_dir.map { String(cString: $0) } ?? "/"
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &groups, &count)
        }
        return UserAccount(name: name, uid: uid, gid: gid, groups: Array(groups.prefix(Int(max(0, count)))), home: home)
    }

    /// The user the agent itself runs as.
    public static func current() -> UserAccount {
        let uid = geteuid()
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name,
           let account = lookup(String(cString: name)) {
            return account
        }
        return UserAccount(name: String(uid), uid: uid, gid: getegid(), groups: [], home: "/")
    }
}
