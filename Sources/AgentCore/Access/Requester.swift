// SPDX-License-Identifier: Apache-2.0
/// Who asks on the control socket, as the shell resolved the peer's credentials (SO_PEERCRED)
/// against the user and group databases and the runs' cgroups (DESIGN §9). The rules that use
/// it (`ChangeAuthority`, `DetailVisibility`) are pure.
public struct Requester: Sendable, Hashable {
    /// Root, the agent's own user, or (system agent) a member of group `agentd`: every change
    /// and every detail.
    public var isAdministrator: Bool
    /// The peer's uid and every group it has (primary and supplementary).
    public var identity: UserIdentity
    /// Its user name, when the user database has one.
    public var userName: String?
    /// The groups named by the manifest in question that the peer belongs to (by gid or as a
    /// listed member); the shell fills in only the names a manifest asks about.
    public var groupNames: Set<String>
    /// The manifest of the run the peer is a process of, when it is one of the agent's runs
    /// (recognised by its cgroup): a run acts for its own manifest's identifiers.
    public var runManifest: String?

    public init(isAdministrator: Bool, identity: UserIdentity, userName: String? = nil,
                groupNames: Set<String> = [], runManifest: String? = nil) {
        self.isAdministrator = isAdministrator
        self.identity = identity
        self.userName = userName
        self.groupNames = groupNames
        self.runManifest = runManifest
    }

    /// Whether `manifest` names this peer in `Users=` or `Groups=`.
    public func isNamed(by manifest: Manifest) -> Bool {
        if let userName, manifest.users.contains(userName) { return true }
        return manifest.groups.contains { groupNames.contains($0) }
    }

    /// `uid 1001 (bob)`, for refusals.
    public var shownName: String {
        "uid \(identity.uid)" + (userName.map { " (\($0))" } ?? "")
    }
}

/// A manifest in force and its name (its file name without `.manifest`).
public struct NamedManifest: Sendable, Hashable {
    public var name: String
    public var manifest: Manifest

    public init(name: String, manifest: Manifest) {
        self.name = name
        self.manifest = manifest
    }

    /// `Users=alice Groups=photos`, or nil when it names nobody.
    public var actors: String? {
        let parts = [manifest.users.isEmpty ? nil : "Users=" + manifest.users.joined(separator: " "),
                     manifest.groups.isEmpty ? nil : "Groups=" + manifest.groups.joined(separator: " ")]
            .compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
