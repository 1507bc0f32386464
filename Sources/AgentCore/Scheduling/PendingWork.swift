// SPDX-License-Identifier: Apache-2.0
/// One entry of `agentctl pending` (getPendingTaskRequests): a job or submission that would run
/// but waits, and why.
public struct PendingWork: Sendable, Hashable {
    /// The job's identifier, or the submission's (possibly dynamic) identifier.
    public var identifier: Identifier
    public var kind: JobKind
    /// The earliest time it may start, when a time gates it (nil for continued submissions).
    public var earliestBegin: SchedulerTime?
    public var waitingFor: WaitReason
    /// The queued submission, for continued work.
    public var submission: Submission?
    /// The pending `agentctl request`, for a refresh or processing job that has one: its own
    /// earliest begin and requirements.
    public var request: RunRequest?

    public init(identifier: Identifier, kind: JobKind, earliestBegin: SchedulerTime?,
                waitingFor: WaitReason, submission: Submission?, request: RunRequest? = nil)
    {
        self.request = request
        self.identifier = identifier
        self.kind = kind
        self.earliestBegin = earliestBegin
        self.waitingFor = waitingFor
        self.submission = submission
    }
}
