// SPDX-License-Identifier: Apache-2.0
/// A job's own sandbox (DESIGN §3, issue 26): the subset of systemd.exec(5) applied in the
/// child before exec — never the agent's service's, which must not reach the jobs.
public struct JobSandbox: Hashable, Sendable {
    public enum ProtectSystem: String, Hashable, Sendable, CaseIterable {
        case no, yes, full, strict
    }
    public enum ProtectHome: String, Hashable, Sendable, CaseIterable {
        case no, yes
        case readOnly = "read-only"
        case tmpfs
    }

    public var protectSystem: ProtectSystem = .no
    public var protectHome: ProtectHome = .no
    public var privateTmp = false
    public var readWritePaths: [SandboxPath] = []
    public var readOnlyPaths: [SandboxPath] = []
    public var inaccessiblePaths: [SandboxPath] = []
    public var noNewPrivileges = false
    public var privateNetwork = false

    public init() {}

    /// Nothing to set up: the child execs as it always did.
    public var isEmpty: Bool { self == JobSandbox() }
}

/// A path of `ReadWritePaths=`, `ReadOnlyPaths=`, `InaccessiblePaths=`.
public struct SandboxPath: Hashable, Sendable {
    public var path: String
    /// systemd's leading `-`: a path that does not exist is skipped rather than failing the run.
    public var mayBeMissing: Bool

    public init(path: String, mayBeMissing: Bool = false) {
        self.path = path
        self.mayBeMissing = mayBeMissing
    }
}

extension JobSandbox.ProtectSystem {
    /// systemd also takes a boolean.
    init?(setting: String) {
        if let value = Self(rawValue: TextBytes.asciiLowercased(setting)) { self = value; return }
        guard let flag = BooleanValue.parse(setting) else { return nil }
        self = flag ? .yes : .no
    }
}

extension JobSandbox.ProtectHome {
    init?(setting: String) {
        if let value = Self(rawValue: TextBytes.asciiLowercased(setting)) { self = value; return }
        guard let flag = BooleanValue.parse(setting) else { return nil }
        self = flag ? .yes : .no
    }
}
