// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem
import Glibc

/// DESIGN §9 in the shell: who the peer is (SO_PEERCRED, the user and group databases, the
/// run cgroup it is in), turned into a `Requester` for the core's rules — `ChangeAuthority`
/// for changes, `DetailVisibility` for what reads show (`ReadRedaction`).
///
/// - reads: everyone; details of a job only for administrators, its manifest's `Users=`/
///   `Groups=`, its manifest's runs, and whoever can read its job file;
/// - `.identifier` verbs (request, submit, trigger, cancel, cancel-request): administrators,
///   and on a manifest's identifiers its `Users=`/`Groups=` and its own runs;
/// - `.change` verbs: root and group `agentd` (the per-user agent: its user);
/// - `.root` verbs (`simulate`, `lowpower`): root.
struct AccessPolicy {
    let catalogue: JobCatalogue
    let runs: RunSupervisor
    /// The per-user agent: only its own user (and root) make changes; group `agentd` is the
    /// system agent's.
    let userMode: Bool
    /// The agent's own user stands as root (the per-user agent's user; an unprivileged test agent's).
    let agentUID: uid_t
    /// Where the peers' `/proc/PID/cgroup` is read (always the real /proc: peers are real processes).
    var procRoot = "/proc"

    init(catalogue: JobCatalogue, runs: RunSupervisor, userMode: Bool, agentUID: uid_t = geteuid()) {
        self.catalogue = catalogue
        self.runs = runs
        self.userMode = userMode
        self.agentUID = agentUID
    }

    /// Refuses a verb before it looks at its target: `.change` and `.root` verbs for those who
    /// may not use them at all. `.identifier` verbs are decided per target (`decide`), except
    /// on the per-user agent, which is its user's alone.
    func check(_ command: ControlCommand, peer: PeerCredentials) throws(VerbRefusal) {
        switch command.access {
        case .read:
            return
        case .change, .identifier:
            if peer.uid == 0 || peer.uid == agentUID { return }
            if userMode { throw .otherUsersAgent(command) }
            if command.access == .identifier || isInAgentdGroup(peer) { return }
            throw .notAdministrator(command)
        case .root:
            if peer.uid == 0 || peer.uid == agentUID { return }
            throw .notRoot(command)
        }
    }

    /// Who the connection's peer is. The run it belongs to is looked up only for peers that
    /// are no administrator (nothing more to grant them).
    func requester(_ connection: ClientConnection) -> Requester {
        let peer = connection.peer
        let identity = UserIdentity(uid: peer.uid, groups: Array(Set([peer.gid] + peer.groups)))
        let administrator = peer.uid == 0 || peer.uid == agentUID || (!userMode && isInAgentdGroup(peer))
        guard !administrator else { return Requester(isAdministrator: true, identity: identity) }
        let userName = GroupMembership.userName(peer.uid)
        var groupNames: Set<String> = []
        // Only the groups some manifest names: a handful of lookups, not the peer's every group.
        for name in Set(catalogue.registry.manifestsByPath.values.flatMap(\.groups)) {
            guard let group = GroupMembership.lookup(name) else { continue }
            if peer.isMember(ofGroup: group.gid) || userName.map(group.members.contains) == true {
                groupNames.insert(name)
            }
        }
        return Requester(isAdministrator: false, identity: identity, userName: userName,
                         groupNames: groupNames, runManifest: runManifest(of: connection))
    }

    /// The manifest owning `id` (a dynamic identifier: its job's), by the kind of the job in force.
    func owner(of id: Identifier) -> NamedManifest? {
        let registry = catalogue.registry
        if let job = registry.job(id) {
            return registry.owningManifest(of: id, kind: job.definition.kind)
        }
        for parent in id.parents {
            if let job = registry.job(parent) {
                return registry.owningManifest(of: id, kind: job.definition.kind)
                    ?? registry.owningManifest(of: parent, kind: job.definition.kind)
            }
        }
        return nil
    }

    /// `verb` on identifier `id` by `requester`.
    func decide(_ verb: ControlCommand, _ id: Identifier, _ requester: Requester) -> ChangeAuthority.Decision {
        ChangeAuthority.decide(verb.rawValue, id, owner: owner(of: id), requester: requester)
    }

    /// Whether `requester` may act for `id` (cancel-request --all withdraws only those).
    func mayAct(for id: Identifier, _ requester: Requester) -> Bool {
        ChangeAuthority.mayAct(for: owner(of: id), requester: requester)
    }

    /// The redaction of every read answer and event for `requester`; nil for those who see
    /// everything. Decisions are made per identifier, at most once per answer.
    func redaction(for requester: Requester) -> ReadRedaction? {
        guard !requester.isAdministrator else { return nil }
        let registry = catalogue.registry
        let resolveOwner = owner(of:)
        var decided: [String: Bool] = [:]
        return ReadRedaction { raw in
            if let known = decided[raw] { return known }
            let sees: Bool
            if let id = Identifier(rawValue: raw) {
                // A dynamic identifier's details are its job's: the job file tells them.
                // A file in error tells what it tells to those who can read it, as one in force.
                let file = registry.job(id)?.file
                    ?? id.parents.lazy.compactMap { registry.job($0)?.file }.first
                    ?? registry.jobFileWithErrors(id)?.file
                sees = DetailVisibility.seesDetails(requester, file: file, owner: resolveOwner(id))
            } else {
                sees = false
            }
            decided[raw] = sees
            return sees
        }
    }

    /// A redaction that follows the configuration as it changes, for an event subscriber: its
    /// requester is resolved once, each event's identifier against the registry of that moment.
    func liveRedaction(for requester: Requester) -> ((String) -> Bool)? {
        guard !requester.isAdministrator else { return nil }
        let policy = self
        return { raw in policy.redaction(for: requester)?.seesDetails(raw) ?? true }
    }

    /// The manifest of the run whose cgroup the peer's process is in (DESIGN §9: the agent
    /// knows its runs' processes). The cgroups are the agent's own, which only root can move a
    /// process into; the pid is checked to still be the connecting process after the read.
    private func runManifest(of connection: ClientConnection) -> String? {
        guard !runs.live.isEmpty else { return nil }
        let root = procRoot
        let run = connection.whilePeerProcessLives { pid -> RunID? in
            guard let text = SmallFile.read("\(root)/\(pid)/cgroup") else { return nil }
            return RunCgroupMembership(procCgroup: text).run { id in runs.cgroupPaths(of: id) }
        }
        guard let run, let active = runs.run(run) else { return nil }
        return catalogue.registry.owningManifest(of: active.job.identifier, kind: active.job.kind)?.name
    }

    private func isInAgentdGroup(_ peer: PeerCredentials) -> Bool {
        guard let group = GroupMembership.lookup("agentd") else { return false }
        return peer.isMember(ofGroup: group.gid) || group.contains(uid: peer.uid, gid: peer.gid)
    }
}

extension RunSupervisor {
    /// Every cgroup directory of a live run: its own, and its cgroup v1 limit groups.
    func cgroupPaths(of id: RunID) -> [String] {
        guard let run = run(id) else { return [] }
        return [run.process?.cgroupPath, run.keptCgroup?.path].compactMap { $0 } + (run.limitGroups?.paths ?? [])
    }
}

/// Why a peer may not use a verb at all, whatever it names (DESIGN §9); its text is the
/// `access-denied` answer.
enum VerbRefusal: Error, Equatable, CustomStringConvertible {
    /// A change to the per-user agent by someone other than its user.
    case otherUsersAgent(ControlCommand)
    /// A change by someone neither root nor in group `agentd`.
    case notAdministrator(ControlCommand)
    /// A root-only verb from someone else.
    case notRoot(ControlCommand)

    var description: String {
        switch self {
        case .otherUsersAgent(let command): "\(command.rawValue) changes this user's agent: only its own user may"
        case .notAdministrator(let command): "\(command.rawValue) changes the agent: run it as root or as a member of group agentd"
        // As a person types it: `simulate launch`, not the socket's `simulate-launch`.
        case .notRoot(let command): "\(command == .simulateLaunch ? "simulate launch" : command == .simulateExpire ? "simulate expire" : command.rawValue) is for root: run it with sudo"
        }
    }
}
