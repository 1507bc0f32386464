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
        public var key: String
        public var message: String { "\(key)=: needs a root agent (an unprivileged agent cannot make the mounts and namespaces it needs)" }
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
            plan.readWritePaths.append(stateDirectory)
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
        return .success(plan)
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
