// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// `Condition…=` answered from this machine right before a launch (systemd.unit(5)): the paths
/// from the real file system, as the agent (root, like systemd) sees them; the virtualization
/// probed once (``VirtualizationProbe``); external power from the agent's own power state.
public struct MachineConditionFacts: ConditionFacts {
    public let virtualization: Virtualization
    public let onACPower: Bool

    public let capabilityBoundingSet: UInt64

    public init(virtualization: Virtualization, onACPower: Bool,
                capabilityBoundingSet: UInt64 = MachineConditionFacts.ownBoundingSet()) {
        self.virtualization = virtualization
        self.onACPower = onACPower
        self.capabilityBoundingSet = capabilityBoundingSet
    }

    /// `CapBnd:` of /proc/self/status (all bits set where it cannot be read: as systemd, which
    /// reads its own bounding set, an unreadable one withholds nothing).
    public static func ownBoundingSet(procRoot: String = "/proc") -> UInt64 {
        guard let text = SmallFile.read(procRoot + "/self/status", limit: 16_384) else { return .max }
        for line in text.split(separator: "\n") where line.hasPrefix("CapBnd:") {
            let hex = line.dropFirst("CapBnd:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" })
            return UInt64(hex, radix: 16) ?? .max
        }
        return .max
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
