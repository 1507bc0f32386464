// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// A run's own sandbox as the child applies it (DESIGN §3: a subset of systemd.exec(5), applied
/// in the child before exec, never inherited from the agent's service): the mounts of a mount
/// namespace of its own, a network namespace, and no_new_privs. The job keys are turned into
/// these lists by ``AgentCore/SandboxPlan``; the child applies them in this order: writable
/// paths made mount points, read-only trees, `/` itself, writable again, inaccessible paths,
/// empty directories, private /tmp.
public struct ProcessSandbox: Equatable, Sendable {
    public var readWritePaths: [String] = []
    public var readOnlyPaths: [String] = []
    /// `/` itself read-only (ProtectSystem=strict; its other mounts are in `readOnlyPaths`).
    public var rootReadOnly = false
    public var inaccessiblePaths: [String] = []
    /// Bound over inaccessible paths that are not directories: a mode-0000 file of the agent's.
    public var inaccessibleFile: String?
    /// A fresh tmpfs each (PrivateTmp=: /tmp, /var/tmp).
    public var privateTmpPaths: [String] = []
    /// An empty read-only tmpfs each (ProtectHome=tmpfs).
    public var emptyPaths: [String] = []
    public var privateNetwork = false
    public var noNewPrivileges = false

    public init() {}

    /// Whether the child needs a mount namespace of its own.
    public var needsMountNamespace: Bool {
        rootReadOnly || !(readWritePaths.isEmpty && readOnlyPaths.isEmpty && inaccessiblePaths.isEmpty
            && privateTmpPaths.isEmpty && emptyPaths.isEmpty)
    }

    public var isEmpty: Bool { !needsMountNamespace && !privateNetwork && !noNewPrivileges }

    /// The path a failed step named by its list index.
    func path(failedAt step: String, item: Int) -> String? {
        let list: [String]
        switch step {
        case "ReadWritePaths": list = readWritePaths
        case "ReadOnlyPaths": list = readOnlyPaths
        case "InaccessiblePaths": list = inaccessiblePaths
        case "PrivateTmp": list = privateTmpPaths
        case "ProtectHome": list = emptyPaths
        default: return nil
        }
        return list.indices.contains(item) ? list[item] : nil
    }
}

/// The sandbox's lists as C string arrays, alive for the call of `body`.
struct SandboxLists {
    var readWrite: UnsafePointer<UnsafeMutablePointer<CChar>?>?
    var readOnly: UnsafePointer<UnsafeMutablePointer<CChar>?>?
    var inaccessible: UnsafePointer<UnsafeMutablePointer<CChar>?>?
    var privateTmp: UnsafePointer<UnsafeMutablePointer<CChar>?>?
    var empty: UnsafePointer<UnsafeMutablePointer<CChar>?>?
    var inaccessibleFile: UnsafePointer<CChar>?

    func apply(to spec: inout cshim_spawn_request, _ sandbox: ProcessSandbox) {
        spec.mount_namespace = sandbox.needsMountNamespace ? 1 : 0
        spec.read_write_paths = readWrite
        spec.read_only_paths = readOnly
        spec.root_read_only = sandbox.rootReadOnly ? 1 : 0
        spec.inaccessible_paths = inaccessible
        spec.inaccessible_file = inaccessibleFile
        spec.private_tmp_paths = privateTmp
        spec.empty_paths = empty
        spec.private_network = sandbox.privateNetwork ? 1 : 0
        spec.no_new_privileges = sandbox.noNewPrivileges ? 1 : 0
    }
}

func withSandboxLists<R>(_ sandbox: ProcessSandbox, _ body: (SandboxLists) -> R) -> R {
    withCStrings(sandbox.readWritePaths) { readWrite in
        withCStrings(sandbox.readOnlyPaths) { readOnly in
            withCStrings(sandbox.inaccessiblePaths) { inaccessible in
                withCStrings(sandbox.privateTmpPaths) { privateTmp in
                    withCStrings(sandbox.emptyPaths) { empty in
                        withOptionalCString(sandbox.inaccessibleFile) { file in
                            body(SandboxLists(readWrite: readWrite, readOnly: readOnly, inaccessible: inaccessible,
                                              privateTmp: privateTmp, empty: empty, inaccessibleFile: file))
                        }
                    }
                }
            }
        }
    }
}
