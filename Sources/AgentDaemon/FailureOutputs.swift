// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import AgentSystem
import Glibc

/// The output tails of recent runs whose end chains an `OnFailure=` job, until that job's run
/// is launched and gets the tail in a file (`AGENTD_PREVIOUS_OUTPUT`, DESIGN §5). In memory
/// only, like the rest of a chain's input, and bounded: a job that fails faster than its
/// report runs keeps only the newest tails.
struct FailureOutputs {
    private var tails: [RunID: [String]] = [:]
    private let limit = 32

    mutating func keep(_ run: RunID, _ lines: [String]) {
        tails[run] = lines
        if tails.count > limit, let oldest = tails.keys.min() { tails[oldest] = nil }
    }

    mutating func take(_ run: RunID) -> [String]? { tails.removeValue(forKey: run) }

    /// One file per chained job, replaced by its next chained run (one runs at a time): a job
    /// that keeps failing leaves one file, not one per run.
    static let fileName = ".agentd-previous-output"

    /// Writes `lines` to ``fileName`` inside `directory` (the chained run's `STATE_DIRECTORY`,
    /// owned by its user), readable by that user only. The old file is removed first and the new
    /// one made with `O_EXCL`: whatever the user planted there (a link) is never written through.
    static func write(_ lines: [String], directory: String, owner: UserAccount?) -> Result<String, LaunchProblem> {
        if case .missing = FileSystem.entry(at: directory) {
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                return .failure(LaunchProblem("AGENTD_PREVIOUS_OUTPUT: mkdir \(directory): \(SystemError.text(errno))"))
            }
            if let owner, geteuid() == 0 { _ = chown(directory, owner.uid, owner.gid) }
        }
        // Files of the earlier naming, one per run (`.agentd-previous-output-r000042`), go.
        for stale in SmallFile.entries(directory) where stale.hasPrefix(fileName + "-r") {
            unlink(directory + "/" + stale)
        }
        let path = directory + "/" + fileName
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            return .failure(LaunchProblem("AGENTD_PREVIOUS_OUTPUT: \(path): \(SystemError.text(errno))"))
        }
        defer { close(fd) }
        if let owner, geteuid() == 0 { _ = fchown(fd, owner.uid, owner.gid) }
        let text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
        do {
            try FileSystem.writeAll(fd, Array(text.utf8), path: path)
        } catch {
            return .failure(LaunchProblem("AGENTD_PREVIOUS_OUTPUT: \(error)"))
        }
        return .success(path)
    }
}
