// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A cgroup v1 hierarchy that carries one controller (`pids`, `memory`), as on a hybrid host
/// whose unified tree has no controllers, and the agent's own group in it. Each run gets a
/// group of its own below the agent's, in every such hierarchy, joined before exec.
public struct CgroupV1Controller: Sendable, Hashable {
    public var name: String
    /// `/sys/fs/cgroup/pids`.
    public var mountPoint: String
    /// The agent's group, relative to the mount (`/`, `/system.slice/agentd.service`).
    public var ownPath: String

    public var ownDirectory: String {
        ownPath == "/" ? mountPoint : mountPoint + ownPath
    }

    /// The hierarchy mounted with controller `name`, or nil (none, or mounted from a sub-group).
    public static func detect(_ name: String) -> CgroupV1Controller? {
        guard let mountinfo = SmallFile.read("/proc/self/mountinfo", limit: 1 << 20),
              let cgroups = SmallFile.read("/proc/self/cgroup", limit: 1 << 20) else { return nil }
        return find(name, mountinfo: mountinfo, cgroups: cgroups)
    }

    /// `find` on the texts of /proc/self/mountinfo and a process's /proc/PID/cgroup (its group:
    /// `ownPath`).
    public static func find(_ name: String, mountinfo: String, cgroups: String) -> CgroupV1Controller? {
        var mountPoint: String?
        for line in mountinfo.split(separator: "\n") {
            // "33 25 0:28 / /sys/fs/cgroup/pids rw,relatime shared:9 - cgroup cgroup rw,pids"
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash + 3 < fields.endIndex,
                  fields[dash + 1] == "cgroup", dash > 4, fields[3] == "/",
                  fields[dash + 3].split(separator: ",").contains(where: { $0 == name }) else { continue }
            mountPoint = CgroupHierarchy.unescape(String(fields[4]))
            break
        }
        guard let mountPoint else { return nil }
        // "8:pids:/" or "4:cpu,cpuacct:/user.slice"
        for line in cgroups.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1].split(separator: ",").contains(where: { $0 == name }) else { continue }
            let path = String(parts[2])
            return CgroupV1Controller(name: name, mountPoint: mountPoint, ownPath: path.isEmpty ? "/" : path)
        }
        return nil
    }
}
