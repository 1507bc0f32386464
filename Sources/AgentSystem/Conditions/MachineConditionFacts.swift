// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// `Condition…=` answered from this machine right before a launch (systemd.unit(5)): the paths
/// from the real file system, as the agent (root, like systemd) sees them; the virtualization
/// probed once (``VirtualizationProbe``); external power from the agent's own power state.
public struct MachineConditionFacts: ConditionFacts {
    public let virtualization: Virtualization
    public let onACPower: Bool

    public init(virtualization: Virtualization, onACPower: Bool) {
        self.virtualization = virtualization
        self.onACPower = onACPower
    }

    public func pathExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    public func globMatches(_ pattern: String) -> Bool {
        var found = glob_t()
        defer { globfree(&found) }
        return glob(pattern, 0, nil, &found) == 0 && found.gl_pathc > 0
    }

    public func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    public func directoryIsNotEmpty(_ path: String) -> Bool {
        guard let handle = opendir(path) else { return false }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                bytes[0] == 0x2E && (bytes[1] == 0 || (bytes[1] == 0x2E && bytes[2] == 0))
            }
            if !isDot { return true }
        }
        return false
    }

    public func fileIsNotEmpty(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size > 0
    }

    public func fileIsExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o111 != 0
    }
}
