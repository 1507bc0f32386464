// SPDX-License-Identifier: Apache-2.0
/// What the shell must do after an event, in list order.
///
/// Ordering rules: launches and log lines come in decision order; then at most one
/// `.persist` (when anything persisted changed); then every `.reply`. So a reply that accepted
/// a submission follows a `.persist(_, .now)` that makes it durable, and a launch precedes the
/// write that records it (a crash in between re-runs it rather than losing it).
public enum SchedulerAction: Sendable, Equatable {
    /// Start a run of the job the scheduler decided on; the shell reports `.runStarted` (or
    /// `.runEnded` with `spawn-failed`).
    case launch(LaunchOrder)
    /// Answer a `submit` request.
    case reply(requestID: Int64, SubmitOutcome)
    /// Write what the event changed to SQLite, in one transaction: the touched identifiers'
    /// rows and the agent-wide part. The cadence says whether the write may wait.
    case persist(ScheduleChanges, PersistCadence)
    /// Expire a live run (SIGTERM, grace period, SIGKILL) with this reason: a condition it
    /// needed was lost, memory pressure, or a pause past `MaxPause=`.
    case expire(RunID, ExpiryReason)
    /// `OnConditionLost=pause`: freeze the run (cgroup.freeze, else SIGSTOP); its
    /// `MaxRuntime=` and progress clocks stop until `.thaw`. For a run frozen already: what
    /// holds it now (status shows it; nothing else changes).
    case freeze(RunID, ConditionHold)
    /// Its conditions are back: thaw it.
    case thaw(RunID)
    /// Processing runs on battery get a lower CPU weight, and regain it on AC.
    case setCPUWeight(RunID, lowered: Bool)
    /// A line worth the agent's log: deferrals, refusals, retries, catch-up plans.
    case log(String)
}

/// The answer to `agentctl submit`.
public enum SubmitOutcome: Sendable, Hashable {
    /// Accepted. `position` 0: launched now; n ≥ 1: n-th in the agent-wide FIFO of queued
    /// submissions (continued submissions start in submission order as slots free).
    case accepted(position: Int)
    /// A run-time request (`.request`) is pending; `replaced`: it replaced one that was.
    case requested(replaced: Bool)
    case refused(SubmitRefusal)
}

/// Why a submission was refused (agentctl exit codes 3, 4, 5).
public enum SubmitRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// No registered continued job by that identifier (exit 3).
    case notPermitted
    /// Its job already has 16 queued submissions (exit 4).
    case tooManyPending
    /// `--strategy fail` and it cannot start now; also any strategy when the identifier is
    /// denied or restricted, which no wait would cure (exit 5).
    case cannotStartNow(WaitReason)

    public var description: String {
        switch self {
        case .notPermitted: "not-permitted"
        case .tooManyPending: "too-many-pending"
        case .cannotStartNow(let reason): "cannot start now: \(reason)"
        }
    }
}

/// When a `.persist` is written.
public enum PersistCadence: Sendable, Equatable {
    /// A request changed (trigger, retry, chain, disable, pause, a submission queued or
    /// launched at once): write it at once and sync it before any reply to it goes out, so
    /// nothing acknowledged is lost even to a power cut (DESIGN §10).
    case now
    /// Only history changed (run starts and ends, budget): the shell may batch the write for a
    /// moment; a crash in between loses at most that moment's history.
    case batched
}

/// One launch the scheduler decided: every run — scheduled, triggered, submitted, simulated,
/// run-if-stale, retry, chained, catch-up — starts from one of these (there is one launcher).
public struct LaunchOrder: Sendable, Hashable {
    /// The definition the decision was made on (the shell does not look it up again).
    public var job: JobDefinition
    public var reason: RunReason
    /// The continued submission it starts, if any (title, arguments, dynamic identifier).
    public var submission: Submission?
    /// The run's id, allocated here in launch order (numbers continue after the highest the
    /// store holds: ``Scheduler/numberRuns(after:)``); the shell starts the run under it and
    /// reports `.runStarted` with it.
    public var run: RunID
    /// The `.launchNow` request it answers (`simulate launch`, `run-if-stale`): the shell
    /// tells that requester the new run's id.
    public var requestID: Int64?
    /// A launch serving an `OnSuccess=` request: the previous run's id and result, for
    /// `AGENTD_PREVIOUS_RUN_ID` and `AGENTD_PREVIOUS_RESULT`.
    public var chainedInput: ChainedInput?

    public init(job: JobDefinition, reason: RunReason, run: RunID, submission: Submission? = nil,
                requestID: Int64? = nil, chainedInput: ChainedInput? = nil) {
        self.job = job
        self.run = run
        self.reason = reason
        self.submission = submission
        self.requestID = requestID
        self.chainedInput = chainedInput
    }

    /// The identifier the run reports under: a submission's dynamic one, else the job's.
    public var runIdentifier: Identifier { submission?.identifier ?? job.identifier }
}
