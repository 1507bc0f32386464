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
    /// The login shell, for `SHELL` (as systemd sets it with `User=`); `/bin/sh` when the entry has none.
    public var shell: String

    public init(name: String, uid: uid_t, gid: gid_t, groups: [gid_t], home: String, shell: String = "/bin/sh") {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.home = home
        self.shell = shell
    }

    /// Looks up `name` (getpwnam_r, getgrouplist); nil when there is no such user.
    public static func lookup(_ name: String) -> UserAccount? {
        let found: (uid: uid_t, gid: gid_t, home: String, shell: String)? = UserDatabaseBuffer.lookup { buffer, size in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let code = getpwnam_r(name, &entry, buffer, size, &result)
            guard code == 0, result != nil else { return (code, nil) }
            let shell = entry.pw_shell.map { String(cString: $0) } ?? ""
            return (0, (entry.pw_uid, entry.pw_gid, entry.pw_dir.map { String(cString: $0) } ?? "/",
                        shell.isEmpty ? "/bin/sh" : shell))
        }
        guard let found else { return nil }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, found.gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, found.gid, &groups, &count)
        }
        return UserAccount(name: name, uid: found.uid, gid: found.gid, groups: Array(groups.prefix(Int(max(0, count)))),
                           home: found.home, shell: found.shell)
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
