// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import Glibc

/// The state directory's note of where the agent using it makes its runs' cgroups
/// (`STATE/runs-cgroup`, one path). Written before the first run starts; the next agent on the
/// same state reads it and kills whatever the dead agent's runs left there, the runs it never
/// recorded too (``UnrecordedLeftovers``). Not synced: cgroups do not outlive a boot, so after
/// a crash of the machine there is nothing left to find.
public enum RunsParentNote {
    public static let name = "runs-cgroup"

    /// The path noted by the agent that used `stateDirectory` last, if any.
    public static func read(stateDirectory: String) -> String? {
        guard let text = SmallFile.read(stateDirectory + "/" + name, limit: 4096) else { return nil }
        let path = text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init)
        return path?.isEmpty == false ? path : nil
    }

    /// Notes `parent` (nil: removes the note), replacing the file whole (a reader never sees a
    /// part of it).
    public static func write(_ parent: String?, stateDirectory: String) throws(SystemError) {
        let path = stateDirectory + "/" + name
        guard let parent else {
            guard unlink(path) == 0 || errno == ENOENT else { throw SystemError.last("unlink", path: path) }
            return
        }
        let temp = path + ".tmp"
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw SystemError.last("create", path: temp) }
        do {
            defer { close(fd) }
            try FileSystem.writeAll(fd, Array((parent + "\n").utf8), path: temp)
        } catch {
            unlink(temp)
            throw error
        }
        guard rename(temp, path) == 0 else {
            let failure = SystemError.last("rename \(temp) to", path: path)
            unlink(temp)
            throw failure
        }
    }
}
