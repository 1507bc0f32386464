// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Who may take one more control-socket slot (DESIGN §9): one user cannot take every slot, and
/// slots are kept for root and for group `agentd`, so the people who run the machine always get
/// through, however many connections others hold.
struct Admission {
    /// How much the peer is trusted, from its credentials.
    enum Standing: Equatable {
        /// Root, or the user the agent runs as.
        case root
        /// A member of the socket's group (`agentd`).
        case group
        case other
    }

    /// Whose slots a refused peer may not use.
    enum Reserve: Equatable {
        case root
        case rootAndGroup
    }

    let limits: ControlServer.Limits

    /// Root and the agent's own user (`agentd --user`) stand as root: the machine's (or the
    /// session's) owner.
    static func standing(of peer: PeerCredentials, group: gid_t?, agentUID: uid_t = geteuid()) -> Standing {
        if peer.isRoot || peer.uid == agentUID { return .root }
        if let group, peer.isMember(ofGroup: group) { return .group }
        return .other
    }

    /// Nil to admit; otherwise why not. `open` counts all connections, `openForUser` those of the
    /// peer's uid.
    func refusal(standing: Standing, uid: uid_t, open: Int, openForUser: Int) -> Refusal? {
        if standing != .root && openForUser >= limits.maxClientsPerUser {
            return .tooManyForUser(uid: uid, limit: limits.maxClientsPerUser)
        }
        let (slots, reserve) = slots(for: standing)
        guard open >= slots else { return nil }
        return .tooManyClients(limit: slots, reservedFor: reserve)
    }

    /// How many connections in all may be open when a peer of `standing` is admitted.
    func slots(for standing: Standing) -> (Int, Reserve?) {
        let total = max(0, limits.maxClients)
        let root = max(0, limits.reservedForRoot)
        let group = max(0, limits.reservedForGroup)
        switch standing {
        case .root: return (total, nil)
        case .group: return (max(0, total - root), .root)
        case .other: return (max(0, total - root - group), .rootAndGroup)
        }
    }
}
