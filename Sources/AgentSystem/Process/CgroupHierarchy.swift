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

    /// Creates (or takes over) the parent of every run's cgroup below the agent's own and returns
    /// its directory.
    public func makeRunsParent(named name: String) throws(SystemError) -> String {
        let parent = ownDirectory + "/" + name
        guard mkdir(parent, 0o755) == 0 || errno == EEXIST else { throw .last("mkdir", path: parent) }
        return parent
    }

    /// Removes the runs' parent at exit; it is left where a run cgroup is still in it.
    public static func removeRunsParent(_ directory: String) {
        _ = rmdir(directory)
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
    static func unescape(_ text: String) -> String {
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

/// Which controllers the runs' cgroups get in the unified hierarchy, and why the others not.
public struct UnifiedControllers: Sendable {
    /// Enabled in the runs' parent's `cgroup.subtree_control`: each run's cgroup has its files.
    public var enabled: Set<String> = []
    /// Controller → why it is not enabled for runs.
    public var problems: [String: String] = [:]
}

extension CgroupHierarchy {
    /// Enables `wanted` controllers (`pids`, `memory`) for the cgroups under `runsParent`, a
    /// child of the agent's own cgroup: in the agent's own `cgroup.subtree_control`, then in
    /// `runsParent`'s. cgroup v2 lets a cgroup with processes in it enable no controllers for its
    /// children (outside the root), so when the agent is alone in its cgroup (a systemd service
    /// with `Delegate=yes`) it first moves itself into the leaf `agent` beside its runs.
    public func enableControllers(_ wanted: [String], forRunsUnder runsParent: String) -> UnifiedControllers {
        var result = UnifiedControllers()
        let available = Self.words(ownDirectory + "/cgroup.controllers")
        for name in wanted where !available.contains(name) {
            let listed = available.isEmpty ? "none" : available.sorted().joined(separator: " ")
            result.problems[name] = "no \(name) controller delegated to \(ownDirectory), which has \(listed)"
        }
        var alreadyEnabled = Self.words(ownDirectory + "/cgroup.subtree_control")
        var movedToLeaf = false
        for name in wanted where available.contains(name) && !alreadyEnabled.contains(name) {
            var rc = writeControlFile(ownDirectory + "/cgroup.subtree_control", "+" + name)
            if rc == EBUSY, !movedToLeaf, moveSelfIntoLeaf() {
                movedToLeaf = true
                rc = writeControlFile(ownDirectory + "/cgroup.subtree_control", "+" + name)
            }
            if rc == 0 {
                alreadyEnabled.insert(name)
            } else {
                result.problems[name] = Self.enableProblem(name, ownDirectory, rc)
            }
        }
        for name in wanted where alreadyEnabled.contains(name) {
            let rc = writeControlFile(runsParent + "/cgroup.subtree_control", "+" + name)
            if rc == 0 {
                result.enabled.insert(name)
            } else {
                result.problems[name] = Self.enableProblem(name, runsParent, rc)
            }
        }
        return result
    }

    private static func enableProblem(_ name: String, _ directory: String, _ rc: Int32) -> String {
        let cause = rc == EBUSY
            ? "other processes share the agent's cgroup; run agentd as its systemd service, which has Delegate=yes"
            : SystemError.text(rc)
        return "cannot enable \(name) in \(directory)/cgroup.subtree_control: \(cause)"
    }

    /// Moves the agent (every thread) into `ownDirectory/agent` when no other process is in its
    /// cgroup; false when others are (they would keep the cgroup busy) or the move fails.
    private func moveSelfIntoLeaf() -> Bool {
        let members = Self.words(ownDirectory + "/cgroup.procs")
        guard members == [String(getpid())] else { return false }
        let leaf = ownDirectory + "/agent"
        guard mkdir(leaf, 0o755) == 0 || errno == EEXIST else { return false }
        return writeControlFile(leaf + "/cgroup.procs", String(getpid())) == 0
    }

    /// The whitespace-separated words of a control file (empty when unreadable).
    static func words(_ path: String) -> Set<String> {
        guard let text = SmallFile.read(path, limit: 1 << 20) else { return [] }
        return Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    }
}
