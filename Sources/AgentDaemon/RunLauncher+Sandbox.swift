// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc

/// A job's own sandbox at each spawn: ``SandboxPlan`` decides from the job's keys and what
/// exists here; the child applies it (``ProcessSandbox``). A key this agent cannot enforce ends
/// the run `spawn-failed(ProtectSystem=: needs a root agent …)`, never dropped in silence.
extension RunLauncher {
    func sandbox(of job: JobDefinition) -> Result<ProcessSandbox?, LaunchProblem> {
        let keys = job.extra.sandbox
        guard !keys.isEmpty else { return .success(nil) }
        switch SandboxPlan.plan(keys, stateDirectory: jobsDirectory + job.identifier.rawValue,
                                facts: MachineSandboxFacts()) {
        case .failure(let problem): return .failure(LaunchProblem(problem.message))
        case .success(let plan):
            var file: String?
            if !plan.inaccessiblePaths.isEmpty {
                switch inaccessibleFile() {
                case .success(let path): file = path
                case .failure(let problem): return .failure(problem)
                }
            }
            return .success(ProcessSandbox(plan, inaccessibleFile: file))
        }
    }

    /// The mode-0000 file bound over inaccessible paths that are not directories (as systemd's
    /// /run/systemd/inaccessible/reg): made once in the agent's state directory, owned by it.
    private func inaccessibleFile() -> Result<String, LaunchProblem> {
        let path = FileSystem.parentDirectory(of: FileSystem.parentDirectory(of: jobsDirectory + "x")) + "/inaccessible"
        var info = stat()
        if lstat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 == 0, info.st_uid == geteuid() {
                return .success(path)
            }
            unlink(path)
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0)
        guard fd >= 0 else {
            return .failure(LaunchProblem("InaccessiblePaths=: cannot make \(path): \(SystemError.text(errno))"))
        }
        fchmod(fd, 0)
        close(fd)
        return .success(path)
    }
}
