// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Where the cgroup v2 (unified) hierarchy is mounted and which cgroup the agent is in, read from
/// /proc/self/mountinfo and /proc/self/cgroup. Runs get cgroups below the agent's own, so a run's
/// every process — a grandchild that double-forked and called setsid too — can be found, signalled
/// and killed (`cgroup.kill`), and its end observed (`cgroup.events`).
public struct CgroupHierarchy: Sendable, Hashable {
    /// Mount point of the cgroup2 file system (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` on
    /// hybrid systems).
    public var mountPoint: String
    /// The agent's own cgroup, relative to the mount (`/system.slice/agentd.service`).
    public var ownPath: String

    /// The directory of the agent's own cgroup.
    public var ownDirectory: String {
        ownPath == "/" ? mountPoint : mountPoint + ownPath
    }

    /// Finds the unified hierarchy, or nil when there is none (cgroup v1 only) .
    public static func detect() -> CgroupHierarchy? {
        guard let mountinfo = SmallFile.read("/proc/self/mountinfo", limit: 1 << 20),
              let cgroups = SmallFile.read("/proc/self/cgroup", limit: 1 << 20) else { return nil }
        var mountPoint: String?
        for line in mountinfo.split(separator: "\n") {
            // "36 25 0:31 / /sys/fs/cgroup/unified rw,… shared:10 - cgroup2 cgroup2 rw,…"
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-") else { continue }
            let head = fields[..<dash]
            let tail = fields[(dash + 1)...]
            if tail.first == "cgroup2", head.count > 4, head[head.startIndex + 3] == "/" {
                mountPoint = unescape(String(head[head.startIndex + 4]))
                break
            }
        }
        guard let mountPoint else { return nil }
        for line in cgroups.split(separator: "\n") where line.hasPrefix("0::") {
            var path = String(line.dropFirst(3))
            if path.hasSuffix(" (deleted)") { path = String(path.dropLast(10)) }
            return CgroupHierarchy(mountPoint: mountPoint, ownPath: path.isEmpty ? "/" : path)
        }
        return nil
    }

    /// mountinfo escapes spaces and the like as \ooo.
    private static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "\\"), iterator.count >= 3,
               let value = UInt8(String(decoding: iterator.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                iterator = iterator.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Writes a short value to a control file (cgroupfs, procfs); returns errno or 0.
@discardableResult
func writeControlFile(_ path: String, _ value: String) -> Int32 {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return errno }
    defer { close(fd) }
    let bytes = Array(value.utf8)
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    return n == bytes.count ? 0 : errno
}
