// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// Who is on the other end of a unix socket, as the kernel recorded it at connect time
/// (SO_PEERCRED, SO_PEERGROUPS): the basis of the control socket's authorization (DESIGN §9).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The connecting process (it may have exited since).
    public let pid: pid_t
    /// Its effective user id.
    public let uid: uid_t
    /// Its effective group id.
    public let gid: gid_t
    /// Its supplementary groups (SO_PEERGROUPS); empty where the kernel does not report them.
    public let groups: [gid_t]

    public init(pid: pid_t, uid: uid_t, gid: gid_t, groups: [gid_t] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Reads the credentials of a connected unix socket's peer.
    public static func of(socket fd: Int32) throws -> PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard cshim_peer_credentials(fd, &pid, &uid, &gid) == 0 else {
            throw SocketError.system(call: "getsockopt(SO_PEERCRED)", errno: errno)
        }
        return PeerCredentials(pid: pid, uid: uid, gid: gid, groups: supplementaryGroups(of: fd))
    }

    /// True for uid 0.
    public var isRoot: Bool { uid == 0 }

    /// Whether the peer has `group` as its primary or a supplementary group.
    public func isMember(ofGroup group: gid_t) -> Bool {
        gid == group || groups.contains(group)
    }

    public var description: String {
        "pid=\(pid) uid=\(uid) gid=\(gid)"
    }

    private static func supplementaryGroups(of fd: Int32) -> [gid_t] {
        var capacity = 64
        // NGROUPS_MAX is 65536; two rounds always suffice, the loop bound is only a guard.
        for _ in 0..<3 {
            var groups = [gid_t](repeating: 0, count: capacity)
            var needed: Int32 = 0
            let count = groups.withUnsafeMutableBufferPointer {
                cshim_peer_groups(fd, $0.baseAddress, Int32($0.count), &needed)
            }
            if count >= 0 { return Array(groups.prefix(Int(count))) }
            guard errno == ERANGE, Int(needed) > capacity else { return [] }
            capacity = Int(needed)
        }
        return []
    }
}
