// SPDX-License-Identifier: Apache-2.0
/// What the child must set up for a job's own sandbox (DESIGN §3, issue 26 item 2): the job's
/// `JobSandbox` keys turned into the mount lists the child applies before exec, as
/// systemd.exec(5) defines each key. Pure: what exists on the machine comes in as facts.
///
/// - `ProtectSystem=yes`: /usr, /boot and /efi read-only (those that exist); `full`: and /etc;
///   `strict`: every top-level directory but /dev, /proc and /sys read-only, and `/` itself —
///   the job's `STATE_DIRECTORY` stays writable, as systemd keeps a `StateDirectory=`.
/// - `ProtectHome=yes`: /home, /root and /run/user inaccessible; `read-only`: read-only;
///   `tmpfs`: an empty read-only tmpfs over each.
/// - `PrivateTmp=yes`: a /tmp and a /var/tmp of the run's own.
/// - `ReadWritePaths=`, `ReadOnlyPaths=`, `InaccessiblePaths=` as given; systemd's `-` prefix
///   skips a path that does not exist (without it, the child fails naming the path).
/// - Mounts and a network namespace need a root agent: an unprivileged one cannot make them,
///   and a key it cannot enforce is a problem that names the key, never dropped in silence.
/// - The job's `STATE_DIRECTORY` stays writable under every read-only path, as systemd keeps a
///   `StateDirectory=`; a key that would hide it (`PrivateTmp=` with the agent's state under
///   /tmp, `ProtectHome=yes|tmpfs` with it under /home) is a problem naming both.
public struct SandboxPlan: Hashable, Sendable {
    public var readWritePaths: [String] = []
    public var readOnlyPaths: [String] = []
    public var rootReadOnly = false
    public var inaccessiblePaths: [String] = []
    public var privateTmpPaths: [String] = []
    public var emptyPaths: [String] = []
    public var privateNetwork = false
    public var noNewPrivileges = false

    public init() {}

    /// What the plan reads about the machine.
    public protocol Facts {
        /// Whether `path` exists (following links, as the child's mounts do).
        func exists(_ path: String) -> Bool
        /// The directories directly under `/` (absolute: `/usr`, `/var`…).
        var topLevelDirectories: [String] { get }
        /// Whether the agent may make mounts and namespaces (root).
        var canMount: Bool { get }
    }

    /// A key the agent cannot enforce here: the run ends `spawn-failed(message)`.
    public struct Problem: Error, Hashable, Sendable {
        public enum Reason: Hashable, Sendable {
            /// An unprivileged agent cannot make mounts and namespaces.
            case needsRootAgent
            /// The key would replace `path`, under which the job's state directory lies.
            case hidesStateDirectory(state: String, under: String)
        }

        public var key: String
        public var reason: Reason

        public init(key: String, reason: Reason = .needsRootAgent) {
            self.key = key
            self.reason = reason
        }

        public var message: String {
            switch reason {
            case .needsRootAgent:
                "\(key)=: needs a root agent (an unprivileged agent cannot make the mounts and namespaces it needs)"
            case .hidesStateDirectory(let state, let under):
                "\(key)=: the job's state directory \(state) lies under \(under), which \(key)= hides from the run; "
                    + "start the agent with its state directory elsewhere (agentd --state-dir; the package's is "
                    + "/var/lib/agentd) or drop \(key)= from the job"
            }
        }
    }

    /// The directories `ProtectSystem=strict` leaves writable: the kernel's API file systems.
    static let apiFileSystems: Set<String> = ["/dev", "/proc", "/sys"]

    public static func plan(_ sandbox: JobSandbox, stateDirectory: String, facts: some Facts)
        -> Result<SandboxPlan, Problem>
    {
        var plan = SandboxPlan()
        plan.noNewPrivileges = sandbox.noNewPrivileges
        plan.privateNetwork = sandbox.privateNetwork
        func existing(_ paths: [String]) -> [String] { paths.filter(facts.exists) }
        switch sandbox.protectSystem {
        case .no: break
        case .yes: plan.readOnlyPaths += existing(["/usr", "/boot", "/efi"])
        case .full: plan.readOnlyPaths += existing(["/usr", "/boot", "/efi", "/etc"])
        case .strict:
            plan.readOnlyPaths += facts.topLevelDirectories.filter { !apiFileSystems.contains($0) }.sorted()
            plan.rootReadOnly = true
        }
        let homes = existing(["/home", "/root", "/run/user"])
        switch sandbox.protectHome {
        case .no: break
        case .yes: plan.inaccessiblePaths += homes
        case .readOnly: plan.readOnlyPaths += homes
        case .tmpfs: plan.emptyPaths += homes
        }
        if sandbox.privateTmp { plan.privateTmpPaths = existing(["/tmp", "/var/tmp"]) }
        func given(_ paths: [SandboxPath]) -> [String] {
            paths.filter { !$0.mayBeMissing || facts.exists($0.path) }.map(\.path)
        }
        plan.readWritePaths += given(sandbox.readWritePaths)
        plan.readOnlyPaths += given(sandbox.readOnlyPaths)
        plan.inaccessiblePaths += given(sandbox.inaccessiblePaths)
        if !facts.canMount, let key = firstPrivilegedKey(sandbox) { return .failure(Problem(key: key)) }
        let hiding: [(key: String, paths: [String])] = [
            ("PrivateTmp", plan.privateTmpPaths),
            ("ProtectHome", plan.emptyPaths + (sandbox.protectHome == .yes ? homes : [])),
            ("InaccessiblePaths", given(sandbox.inaccessiblePaths)),
        ]
        for (key, paths) in hiding {
            if let hidden = paths.first(where: { lies(stateDirectory, under: $0) }) {
                return .failure(Problem(key: key, reason: .hidesStateDirectory(state: stateDirectory, under: hidden)))
            }
        }
        let readOnly = plan.rootReadOnly || plan.readOnlyPaths.contains { lies(stateDirectory, under: $0) }
        if readOnly && !plan.readWritePaths.contains(stateDirectory) { plan.readWritePaths.insert(stateDirectory, at: 0) }
        return .success(plan)
    }

    /// Whether `path` is `directory` or lies below it.
    static func lies(_ path: String, under directory: String) -> Bool {
        let stem = directory.hasSuffix("/") ? directory : directory + "/"
        return path == directory || path.hasPrefix(stem) || directory == "/"
    }

    /// The first key set that needs mounts or a namespace (all of them but NoNewPrivileges=).
    public static func firstPrivilegedKey(_ sandbox: JobSandbox) -> String? {
        if sandbox.protectSystem != .no { return "ProtectSystem" }
        if sandbox.protectHome != .no { return "ProtectHome" }
        if sandbox.privateTmp { return "PrivateTmp" }
        if !sandbox.readWritePaths.isEmpty { return "ReadWritePaths" }
        if !sandbox.readOnlyPaths.isEmpty { return "ReadOnlyPaths" }
        if !sandbox.inaccessiblePaths.isEmpty { return "InaccessiblePaths" }
        if sandbox.privateNetwork { return "PrivateNetwork" }
        return nil
    }
}
