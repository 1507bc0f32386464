// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc

/// What ``SandboxPlan`` reads about this machine, read at each spawn of a sandboxed job (a
/// few `stat`s of local paths and one listing of `/`: nothing that can wait long).
struct MachineSandboxFacts: SandboxPlan.Facts {
    func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Real directories only: a merged-/usr machine's `/bin` → `usr/bin` is covered by `/usr`.
    var topLevelDirectories: [String] {
        SmallFile.entries("/").map { "/" + $0 }.filter {
            if case .directory = FileSystem.entry(at: $0) { return true }
            return false
        }
    }

    /// Mounts and namespaces need root (an unprivileged agent would need a user namespace,
    /// which this version does not make).
    var canMount: Bool { geteuid() == 0 }
}

extension ProcessSandbox {
    /// The child's lists for `plan`; `inaccessibleFile` is bound over inaccessible non-directories.
    init(_ plan: SandboxPlan, inaccessibleFile: String?) {
        self.init()
        readWritePaths = plan.readWritePaths
        readOnlyPaths = plan.readOnlyPaths
        rootReadOnly = plan.rootReadOnly
        inaccessiblePaths = plan.inaccessiblePaths
        self.inaccessibleFile = plan.inaccessiblePaths.isEmpty ? nil : inaccessibleFile
        privateTmpPaths = plan.privateTmpPaths
        emptyPaths = plan.emptyPaths
        privateNetwork = plan.privateNetwork
        noNewPrivileges = plan.noNewPrivileges
    }
}
