// SPDX-License-Identifier: Apache-2.0
/// Everything that can change the scheduler's mind. The shell feeds these to
/// ``Scheduler/handle(_:now:)`` with the current wall-clock time.
public enum SchedulerEvent: Sendable {
    /// The full set of registered (permitted) jobs now; jobs missing from it disappear, with
    /// their pending requests and queued submissions.
    case jobsChanged([JobDefinition])
    /// Some jobs were added or changed, others removed (one config reload): cheaper than
    /// `.jobsChanged` with the full set.
    case jobsUpdated(changed: [JobDefinition], removed: [Identifier])
    /// `agentd.conf` changed.
    case settingsChanged(AgentSettings)
    /// The manifests changed (added, removed, a `DailyBudget=` or a pattern changed): whose
    /// budget each job spends, and each manifest's limit. Applies at once; a removed manifest's
    /// ledger goes.
    case budgetsChanged(BudgetAccounts)
    /// Time passed: the shell calls `handle(.tick, now:)` when `nextDeadline` is reached.
    case tick
    /// The shell started a run: one the scheduler asked for with `.launch` (matched by
    /// identifier, in launch order), or one it started itself (`agentctl simulate launch`),
    /// which then counts for `MaxConcurrent` and "running" like any other.
    case runStarted(Identifier, RunID, reason: RunReason)
    /// A run ended. A launch that never started (spawn failure reported without `.runStarted`)
    /// is matched by identifier. Unknown runs (e.g. `agent-restart` records at start-up) only
    /// update history. `result`: the run's last `RESULT=`, handed to the run an `OnSuccess=`
    /// chain starts (``LaunchOrder/chainedInput``).
    case runEnded(Identifier, RunID, StopReason, result: String? = nil)
    /// A run reported progress (0…1): the least-progress run goes first when work is shed.
    case runProgress(RunID, Double)
    /// Power, battery, low-power mode, thermal state, network or pressure changed (DESIGN §6).
    case conditionsChanged(Conditions)
    /// `agentctl trigger ID` / the socket verb: the silent-push analog.
    case trigger(Identifier)
    /// `agentctl submit` of a continued job.
    case submit(Submission)
    /// `agentctl simulate launch` (reason `simulated`) or `run-if-stale` found stale (reason
    /// `triggered`): start a run now, bypassing policy but not the one-run-per-identifier rule
    /// of refresh and processing jobs, nor a stopping agent. Answered with `.reply`.
    case launchNow(Identifier, reason: RunReason, requestID: Int64)
    /// `agentctl cancel-request ID`: withdraw the pending requests of an identifier — the
    /// request/trigger/retry/chain request of a refresh or processing job, the queued
    /// submissions of a continued job (or of one dynamic identifier). Interval runs, catch-up
    /// slots and live runs stay. `exactly`: a continued job's own identifier withdraws only
    /// the submissions made with that identifier, not those of the dynamic ones under it (the
    /// BackgroundTasks library's `cancel(taskRequestWithIdentifier:)`, as on iOS).
    case cancelPending(Identifier, exactly: Bool = false)
    /// `agentctl request ID` / the socket verb `request` (BGTaskScheduler's `submit` of a
    /// refresh or processing request): the identifier's pending request, replacing one that
    /// was pending. Answered with `.reply` after the write that makes it durable.
    case request(Identifier, RunRequest, requestID: Int64)
    /// `agentctl enable|disable ID`: disabled means "denied" (a person said no).
    case setEnabled(Identifier, Bool)
    /// `agentctl pause|resume`: all discretionary work.
    case setPaused(Bool)
    /// At start-up: what SQLite kept. Send it before the first `.tick`; catch-up applies on
    /// that tick.
    case restored(PersistedSchedule)
    /// The shell detected downtime or a suspend: catch-up rules apply on the next `.tick`.
    case resumedAfterDowntime
    /// SIGTERM: the agent is stopping. Nothing new starts from here on — not a queued
    /// submission when a slot frees, not due work — and queued submissions stay queued (and
    /// persisted) for the next start; `--strategy queue` submissions are still queued.
    case agentStopping
    /// The local calendar changed (a daylight-saving switch passed, a new time zone, a fresher
    /// look at the zone rules): budget days follow it. Equal calendars change nothing.
    case calendarChanged(LocalCalendar)
    /// The wall clock was stepped (NTP, `date -s`) by this much beyond the time that passed
    /// (positive: forward); `now` of this event is on the new clock. Elapsed-time rules keep
    /// their elapsed time, the budget follows the new local date (see `Scheduler+Clock.swift`).
    case clockStepped(by: Duration)
}

/// `agentctl submit --strategy`.
public enum SubmitStrategy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Wait in the job's queue (at most 16) until a slot frees.
    case queue
    /// Refuse at once, with the reason, when it cannot start now.
    case fail
}

/// One `agentctl submit` of a continued job.
public struct Submission: Sendable, Hashable, Codable {
    /// The run's identifier; may carry a dynamic suffix (`com.example.export.<uuid>`).
    public var identifier: Identifier
    /// The registered job it resolves to (`com.example.export`).
    public var jobIdentifier: Identifier
    public var title: String?
    public var subtitle: String?
    /// Appended to the job's `Exec=` argv.
    public var arguments: [String]
    public var strategy: SubmitStrategy
    /// The control request to answer with `.reply`.
    public var requestID: Int64
    /// `submit --no-notify`: false shows no desktop notification (per-user agent); nil leaves
    /// it to the job's `Notify=`. Optional so submissions stored before it existed decode.
    public var notify: Bool?

    public init(identifier: Identifier, jobIdentifier: Identifier, title: String? = nil,
                subtitle: String? = nil, arguments: [String] = [], strategy: SubmitStrategy = .queue,
                requestID: Int64)
    {
        self.identifier = identifier
        self.jobIdentifier = jobIdentifier
        self.title = title
        self.subtitle = subtitle
        self.arguments = arguments
        self.strategy = strategy
        self.requestID = requestID
    }
}
