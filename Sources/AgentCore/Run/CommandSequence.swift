// SPDX-License-Identifier: Apache-2.0
/// A run's `Exec=` lines in order (issue 26 item 6, DESIGN §3): the commands of one run, as a
/// oneshot service's `ExecStartPre=`/`ExecStart=`/`ExecStartPost=` — one cgroup, one
/// `MaxRuntime=`, one result. After command N's main process exits, the next is spawned when N
/// succeeded (exit 0 or a `SuccessExitStatus=`) or its line started with `-`; otherwise the run
/// ends with N's result. A `-` command's failure, the last one's too, counts as success.
public struct CommandSequence: Hashable, Sendable {
    /// One per command: whether its line started with `-`.
    public var mayFail: [Bool]

    /// `[false]`: one command that must succeed, as a job with one `Exec=` line.
    public init(mayFail: [Bool] = [false]) {
        self.mayFail = mayFail.isEmpty ? [false] : mayFail
    }

    public var count: Int { mayFail.count }

    /// Whether command `index` ended as success, its `-` applied.
    public func succeeded(_ index: Int, _ termination: ProcessTermination, success: SuccessExitStatus) -> Bool {
        if mayFail.indices.contains(index), mayFail[index] { return true }
        return StopReason.resolve(termination: termination, success: success) == .success
    }

    /// The command to spawn after command `index` ended as `termination`; nil: the run ends.
    public func next(after index: Int, _ termination: ProcessTermination, success: SuccessExitStatus) -> Int? {
        guard index + 1 < count, succeeded(index, termination, success: success) else { return nil }
        return index + 1
    }
}
