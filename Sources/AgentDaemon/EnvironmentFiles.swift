// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// A job's `EnvironmentFile=`s, read at each spawn (DESIGN §3: an edit applies to the next run).
/// On the loop: each is a small local file, read as config files are read (regular files only,
/// a FIFO opened non-blocking, a size bound), so nothing here can wait long.
enum EnvironmentFiles {
    /// Far above any /etc/default file; a stray huge file is refused, not read into the agent.
    static let maxBytes = 1 << 20

    /// The variables of every file in order, later files overriding earlier ones; a file that
    /// cannot be read — missing without `-` — is the run's `spawn-failed(EnvironmentFile=…: why)`.
    ///
    /// `restrictedTo`: a drop-in script's owner other than root, for whom the agent (root) must
    /// not read what that user could not (its header may name any file): only files the user
    /// owns or everyone may read, in directories the user may enter (`OwnerReach`).
    static func read(_ files: [EnvironmentFileReference], restrictedTo owner: UInt32? = nil)
        -> Result<[EnvironmentVariable], LaunchProblem>
    {
        var variables = EnvironmentAssignments()
        for file in files {
            // The reader takes a path relative to a directory: the file's, relative to `/`.
            let relative = file.path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
            switch ConfigFileReader.read(configDirectory: "/", relativePath: relative, maxBytes: maxBytes,
                                         walkAlways: owner != nil) {
            case .file(let source):
                if let owner, let why = OwnerReach.problem(source, owner: owner) {
                    return .failure(LaunchProblem("EnvironmentFile=\(file.path): \(why) "
                        + "(uid \(owner)); the agent reads only what the owner of a drop-in script could"))
                }
                for variable in EnvironmentFileParser.parse(source.bytes) { variables.assign(variable.name, variable.value) }
            case .gone:
                if file.mayBeMissing { continue }
                return .failure(LaunchProblem("EnvironmentFile=\(file.path): No such file or directory"))
            case .unreadable(let message):
                return .failure(LaunchProblem("EnvironmentFile=\(file.path): \(message)"))
            }
        }
        return .success(variables.variables)
    }
}
