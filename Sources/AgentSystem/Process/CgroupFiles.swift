// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The cgroup v2 interface files a run's cgroup is driven through, shared by a live run's
/// ``RunCgroup`` and a dead agent's ``LeftoverCgroup``.
enum CgroupFiles {
    /// Whether `cgroup.events` (open as `eventsFD`) says `populated 1`. Reading it also
    /// acknowledges the kernel's change notification (EPOLLPRI), which is level-triggered until
    /// read.
    static func isPopulated(eventsFD: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { pread(eventsFD, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        return String(decoding: buffer[0..<n], as: UTF8.self).contains("populated 1")
    }

    /// The pids in the cgroup `path` now.
    static func processes(_ path: String) -> [pid_t] {
        guard let text = SmallFile.read(path + "/cgroup.procs", limit: 1 << 20) else { return [] }
        return pids(in: text)
    }

    /// The pids of a `cgroup.procs` text, one a line.
    static func pids(in text: String) -> [pid_t] {
        text.split(separator: "\n").compactMap { pid_t($0) }
    }

    /// SIGKILL to every process in `path` and below, at once (`cgroup.kill`, Linux 5.14). Where
    /// that file is missing: freeze the cgroup (`cgroup.freeze`: a frozen process cannot fork,
    /// and SIGKILL still ends it), then SIGKILL each listed pid.
    static func killAll(_ path: String) {
        guard writeControlFile(path + "/cgroup.kill", "1") != 0 else { return }
        writeControlFile(path + "/cgroup.freeze", "1")
        // Freezing takes effect asynchronously, and without the freezer a process may fork
        // between listing and killing: list again, a bounded number of times (each pass kills
        // what the one before missed).
        for _ in 0..<8 {
            let members = processes(path)
            if members.isEmpty { break }
            for pid in members { kill(pid, SIGKILL) }
        }
    }

    /// The names of the directories in `path` (cgroups below it); none when it cannot be read.
    static func subdirectories(of path: String) -> [String] {
        guard let handle = opendir(path) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if entry.pointee.d_type == DT_DIR, name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
