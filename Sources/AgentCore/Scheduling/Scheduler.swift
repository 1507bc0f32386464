// SPDX-License-Identifier: Apache-2.0
/// The pure scheduling core (DESIGN §4, §6, §10, §12): events in, actions out, no clock, no
/// I/O, no randomness of its own.
///
/// The shell calls ``handle(_:now:)`` for every event with the current wall-clock time, carries
/// out the returned actions in order, and sleeps until ``nextDeadline`` (then sends `.tick`);
/// when `nextDeadline` is nil nothing can become due without an outside event, and the agent
/// sleeps.
///
/// Decisions cost O(log n) in the number of jobs: discretionary jobs wait in a min-heap keyed by
/// the time they may next launch; jobs that are due but held back by a global blocker (paused,
/// `MaxConcurrent`) wait in a second heap, ordered most overdue first, which is looked at only
/// when such a blocker can have changed; jobs whose manifest's budget is spent wait in a third,
/// indexed by manifest, and go back when that manifest's budget refills; jobs held by a per-job blocker (restricted,
/// denied, running) are in neither and are re-examined when that blocker changes. A tick looks
/// only at the jobs whose time has come.
///
/// The rules, in brief (each is a test in `Tests/AgentCoreTests/Scheduling`):
/// - refresh/processing with `Interval=` are due at last run start + interval; a job with no
///   history is due from when it was registered; without `Interval=` only a trigger, a retry or a
///   chain makes one due. One live run and one pending request per identifier: triggers, retries
///   and chains merge into it, and any launch of the identifier consumes it.
/// - `Schedule=` (calendar slots in local time, DST through the offset rule) is an earliest begin:
///   due at the first slot after the last run start (or registration); with `Interval=` both hold;
///   `RandomizedDelay=` adds a stable per-machine offset; `Window=` holds every launch until a
///   window is open; `CatchUp=no` skips a slot missed while down or asleep.
/// - Blockers of discretionary work, in order: restricted (`Deny=`) → denied (disabled) →
///   running → paused → time gate (interval, retry backoff, trigger spacing, catch-up slot) →
///   budget → max concurrent. Trigger spacing counts from the identifier's last launch of any
///   reason. Every discretionary launch (scheduled, triggered, retry, chained, catch-up) spends
///   one unit of the daily budget of the manifest that permits the job (`BudgetAccounts`): one
///   ledger per manifest, so one package spending its budget holds only its own jobs.
/// - continued: only `.submit`; restricted/denied refuse at once (both strategies), `fail`
///   refuses when no slot is free, `queue` waits (16 per job; FIFO across jobs). Continued
///   work goes before discretionary work when a slot frees.
/// - Retry after `failure`/`crashed`/`spawn-failed` at end + `Retry=` delay for the consecutive
///   failure count; a success resets the count, drops a pending retry, and requests the
///   `OnSuccess=` job (`chained`).
/// - Catch-up on the first tick after `.restored`/`.resumedAfterDowntime`: every overdue job with
///   history or a pending request runs once (`catch-up`), at seeded offsets in
///   `[0, CatchUpSpread)`, the earliest slot to the most overdue.
/// - Several due at once: most overdue first, then by identifier.
/// - A wall-clock step (`.clockStepped`) moves the elapsed-time anchors with the clock; the
///   budget follows the local date of the `LocalCalendar` the shell hands over, forward only
///   (`Scheduler+Clock.swift`).
public struct Scheduler: Sendable {
    // Configuration.
    var settings: AgentSettings
    var calendar: LocalCalendar
    var random: SplitMix64
    /// Local-time rules for `Schedule=`/`Window=` (nil: `calendar`'s offset) and the machine id
    /// for `RandomizedDelay=`.
    var offsetRule: (any UTCOffsetRule)?
    var machineID: String
    /// Due jobs with `Window=` waiting in the ready or condition-held heap, by when their window
    /// closes: then they go back to the due heap until it opens again.
    var windowCloses = DeadlineQueue<Identifier, TimedKey>()
    /// The time of the event being (or last) handled: what time-dependent gates (`Window=`) are
    /// judged at when no other time is given.
    var clockNow = SchedulerTime(seconds: 0)
    /// When this boot began, on the wall clock (the shell's CLOCK_REALTIME − CLOCK_BOOTTIME):
    /// `AfterBoot=` counts from it. nil: unknown, and no `AfterBoot=` launch is due.
    public var bootedAt: SchedulerTime?

    // Persisted state (see `snapshot`).
    // Tracked so that each event persists only the identifiers it touched.
    var lastRunStart = TrackedMap<SchedulerTime>()
    var lastSuccess = TrackedMap<SchedulerTime>()
    var consecutiveFailures = TrackedMap<Int>()
    var disabled = TrackedSet()
    var paused = false
    /// Set by `.agentStopping`: no launch of any kind from then on (not persisted: a restart
    /// clears it).
    var stopping = false
    /// One daily-budget ledger per manifest (`Scheduler+Budgets.swift`).
    var budgets = BudgetLedgers()
    var lastTriggerLaunch = TrackedMap<SchedulerTime>()
    /// Mirrors of every pending request, registered jobs' and restored orphans' alike.
    var pendingTriggers = TrackedSet()
    var pendingRetries = TrackedMap<SchedulerTime>()
    var pendingChained = TrackedSet()
    /// `agentctl request`s: one per identifier, a new one replacing it.
    var pendingRequests = TrackedMap<RunRequest>()
    /// When each identifier was last asked for by an `OnSuccess=` chain (not persisted): chains
    /// are spaced by `TriggerSpacing=` like triggers, so no cycle can run away.
    var lastChainRequest: [Identifier: SchedulerTime] = [:]
    /// A chained request held back by `TriggerSpacing=`: the chain request it is spaced after,
    /// so that a live change of the spacing moves it as it moves a pending trigger.
    var chainSpacedAfter: [Identifier: SchedulerTime] = [:]
    /// Restored submissions whose job is not registered (yet): kept until the next
    /// `.jobsChanged` attaches or drops them.
    var orphanSubmissions: [Submission] = []

    /// The manifests' budget accounts, as the shell last sent them (`.budgetsChanged`).
    var accounts = BudgetAccounts()

    // Jobs and their queues.
    var jobs: [Identifier: JobSchedule] = [:]
    /// Discretionary jobs that can run, by the time they may next launch.
    var due = DeadlineQueue<Identifier, TimedKey>()
    /// Discretionary jobs that are due but held by paused/MaxConcurrent, by the time they
    /// became due (most overdue first).
    var ready = DeadlineQueue<Identifier, TimedKey>()
    /// Due discretionary jobs whose manifest's budget is spent, likewise, by account.
    var budgetHeld = BudgetHeldWork()
    /// Continued queues, per job.
    var queues: [Identifier: SubmissionQueue] = [:]
    /// Continued jobs whose queue may start, by their oldest submission's sequence number.
    var continuedReady = DeadlineQueue<Identifier, UInt64>()
    var queuedTotal = 0
    var nextSequence: UInt64 = 0

    var live = LiveRuns()
    /// The machine as the shell last reported it (DESIGN §6).
    var conditions = Conditions()
    /// Discretionary jobs that are due but held by a condition (power, thermal, network…),
    /// by the time they became due; looked at again when conditions change.
    var conditionHeld = DeadlineQueue<Identifier, TimedKey>()
    /// Jobs `Deny=` matches (they sit in no heap; `status` counts them without a walk).
    var restrictedJobs: Set<Identifier> = []
    /// Jobs with `RequiresIdle=yes`: without any, CPU pressure need not be watched.
    var idleJobs: Set<Identifier> = []
    /// `Schedule=` jobs with `WakeSystem=yes`: the wake-up alarm is armed for the next of them.
    var wakeJobs: Set<Identifier> = []
    /// Continued jobs whose queue waits for a condition.
    var continuedHeld: Set<Identifier> = []
    /// Runs frozen by `OnConditionLost=pause`.
    var frozen: [RunID: FrozenRun] = [:]
    /// Runs asked to expire (not asked twice).
    var expiring: Set<RunID> = []
    /// Processing runs whose CPU weight is lowered (on battery).
    var lowered: Set<RunID> = []
    /// When held work was last looked at for the user's presence (`IdleFor=` thresholds after
    /// it are still to come).
    var presenceCheckedAt: SchedulerTime?
    /// The next memory-pressure step while pressure lasts.
    var nextShedAt: SchedulerTime?
    /// Since when discretionary launches wait for the next `.tick`: from the first event until
    /// the first tick (so `.jobsChanged` and `.restored` may come in either order at start-up
    /// without new-looking jobs launching before their history is known), and after
    /// `.restored` / `.resumedAfterDowntime` until the tick that plans the catch-up.
    var holdingSince: SchedulerTime?
    /// The next tick plans a catch-up.
    var catchUpPending = false
    var firstTickSeen = false
    var timeline = Timeline()

    // Output of the event being handled.
    /// The agent-wide part as last handed out in `.persist`.
    var lastGlobals = PersistedSchedule.empty
    var output: [SchedulerAction] = []
    var replies: [SchedulerAction] = []
    var dirty = false
    /// The event's write must be synced before its replies, whatever it changed.
    var persistNow = false
    /// The highest run number given out (or found in the store): launches count on from it.
    private(set) var lastRunNumber: UInt64 = 0
    var newlyReady: [Identifier] = []
    /// Jobs looked at while handling the last event (for tests of the O(log n) design).
    var lastEventWork = 0

    /// - Parameters:
    ///   - seed: deterministic pseudo-random input for the catch-up spread (the shell may pass
    ///     a random number; tests pass a constant).
    ///   - offsetRule: the local-time rules `Schedule=` and `Window=` follow across daylight
    ///     saving; nil: `calendar`'s fixed offset.
    ///   - machineID: `/etc/machine-id`, which `RandomizedDelay=` offsets derive from.
    public init(settings: AgentSettings, calendar: LocalCalendar, seed: UInt64,
                offsetRule: (any UTCOffsetRule)? = nil, machineID: String = "")
    {
        self.settings = settings
        self.calendar = calendar
        self.random = SplitMix64(seed: seed)
        self.offsetRule = offsetRule
        self.machineID = machineID
    }

    /// Applies one event at `now` and returns what the shell must do, in order: launches and
    /// log lines in decision order, then one `.persist` if anything persisted changed, then
    /// the replies.
    public mutating func handle(_ event: SchedulerEvent, now: SchedulerTime) -> [SchedulerAction] {
        output = []
        replies = []
        dirty = false
        persistNow = false
        newlyReady = []
        lastEventWork = 0
        clockNow = now
        if !firstTickSeen, holdingSince == nil { holdingSince = now }
        if budgets.roll(now: now, calendar: calendar) { dirty = true }
        if case .away = conditions.presence { presenceThresholdsPassed(now: now) }

        switch event {
        case .jobsChanged(let definitions): jobsChanged(definitions, now: now)
        case .jobsUpdated(let changed, let removed): jobsUpdated(changed, removed: removed, now: now)
        case .settingsChanged(let new): settingsChanged(new, now: now)
        case .budgetsChanged(let new): budgetsChanged(new, now: now)
        case .tick:
            holdingSince = nil
            firstTickSeen = true
            if catchUpPending {
                catchUpPending = false
                planCatchUp(now: now)
            }
            conditionTick(now: now)
        case .runStarted(let id, let run, let reason): runStarted(id, run, reason: reason, now: now)
        case .runEnded(let id, let run, let stop, let result): runEnded(id, run, stop, result: result, now: now)
        case .runProgress(let run, let fraction): live.setProgress(run, fraction)
        case .conditionsChanged(let new): conditionsChanged(new, now: now)
        case .trigger(let id): trigger(id, now: now)
        case .submit(let submission): submit(submission, now: now)
        case .launchNow(let id, let reason, let requestID): launchNow(id, reason: reason, requestID: requestID, now: now)
        case .cancelPending(let id, let exactly): cancelPending(id, exactly: exactly, now: now)
        case .request(let id, let asked, let requestID): handleRequest(id, asked, requestID: requestID, now: now)
        case .setEnabled(let id, let enabled): setEnabled(id, enabled, now: now)
        case .setPaused(let value): setPaused(value, now: now)
        case .restored(let snapshot): restore(snapshot, now: now)
        case .resumedAfterDowntime:
            catchUpPending = true
            holdingSince = holdingSince ?? now
            log("downtime detected: overdue jobs catch up once each over \(TimeSpan.format(settings.catchUpSpread))")
        case .agentStopping:
            stopping = true
            log("agent stopping: nothing new starts; \(queuedTotal) queued submission\(queuedTotal == 1 ? "" : "s") "
                + "and every pending request stay for the next start")
        case .calendarChanged(let new):
            calendarChanged(new, now: now)
            rescheduleWallClockJobs(now: now)
        case .clockStepped(let size): clockStepped(by: size, now: now)
        }

        dispatch(now: now)
        var actions = output
        if dirty {
            let (changes, cadence) = takeChanges()
            actions.append(.persist(changes, cadence))
        }
        actions.append(contentsOf: replies)
        output = []
        replies = []
        return actions
    }

    /// Launches are numbered after `highest`, the highest run number the store holds (or, when
    /// it cannot be read, a number no run it holds can reach): run ids never repeat across
    /// restarts. Called before the first event; never lowers the count.
    public mutating func numberRuns(after highest: UInt64) {
        lastRunNumber = max(lastRunNumber, highest)
    }

    /// The last run launched (or the highest the store held at start); nil before any.
    public var latestRunID: RunID? { lastRunNumber == 0 ? nil : RunID(lastRunNumber) }

    /// The id of the next launch.
    mutating func newRunID() -> RunID {
        lastRunNumber += 1
        return RunID(lastRunNumber)
    }

    /// When the shell must call `handle(.tick, now:)` next; nil when nothing can become due
    /// without an outside event (the agent sleeps).
    ///
    /// The earliest of: the next time a discretionary job that is not restricted, denied or
    /// running may launch (interval, trigger spacing, retry, catch-up slot) — also while the
    /// budget is spent or `MaxConcurrent` runs are live, so that its "became due, deferred"
    /// entry is written when it happens (once per due cycle); the budget refill while due work
    /// waits on it; due work that could launch (at once). Nothing while paused: only a resume
    /// can change that. A full `MaxConcurrent` adds no deadline: only a run's end frees a slot.
    ///
    /// From the first event until the first `.tick`, and from `.restored` or
    /// `.resumedAfterDowntime` until the next `.tick`, discretionary launches are held and this
    /// is the time of the event that started the hold: the shell ticks at once.
    public var nextDeadline: SchedulerTime? {
        if stopping { return nil }
        if let holding = holdingSince { return holding }
        var earliest: SchedulerTime? = conditionDeadline
        func consider(_ time: SchedulerTime?) {
            guard let time else { return }
            if let current = earliest, current <= time { return }
            earliest = time
        }
        guard !paused else { return earliest }
        consider(due.min?.priority.time)
        consider(windowCloses.min?.priority.time)
        if let waiting = ready.min, live.total < settings.maxConcurrent {
            consider(waiting.priority.time)
        }
        for account in budgetHeld.accounts { consider(budgets.ledger(account).refillsAt) }
        return earliest
    }

    /// `agentctl pending` (getPendingTaskRequests): every job or submission that would run but
    /// waits, with its reason. Discretionary jobs first, by earliest begin then identifier;
    /// then queued submissions in FIFO order. O(n): a query, not a decision.
    public func waiting(now: SchedulerTime) -> [PendingWork] {
        var work = jobs.values.compactMap { pendingWork($0, now: now) }
        work.sort(by: Self.byEarliestBegin(now))
        return work + queuedSubmissions().map { pendingWork($0) }
    }

    /// The entries of ``waiting(now:)`` that are `id`'s — its own as a discretionary job, then
    /// the submissions queued under that identifier, FIFO — without walking every job: for
    /// `pending ID`, `explain ID`, a trigger's or a cancel's answer. O(queued submissions).
    public func waiting(for id: Identifier, now: SchedulerTime) -> [PendingWork] {
        let own = jobs[id].flatMap { pendingWork($0, now: now) }.map { [$0] } ?? []
        // Every queue, not only `resolveJob(id)`'s: a submission stays in the queue of the job it
        // resolved to when it was made, and a more specific job may have been registered since.
        return own + queuedSubmissions().filter { $0.submission.identifier == id }.map { pendingWork($0) }
    }

    /// `agentctl status`: the first `limit` entries of ``waiting(now:)`` and how many there
    /// are, without walking every job: the smallest entries of the heaps that hold waiting
    /// work, the few jobs held by a per-job blocker, and the queued submissions. O(k log n).
    public func waitingSummary(now: SchedulerTime, limit: Int) -> (work: [PendingWork], total: Int) {
        var ids: [Identifier] = []
        ids.append(contentsOf: due.smallest(limit).map(\.key))
        for queue in [ready, conditionHeld, budgetHeld.heap] {
            ids.append(contentsOf: firstByEarliestBegin(queue, limit))
        }
        // Discretionary jobs outside the heaps: restricted, denied or running.
        var outside = restrictedJobs.union(disabled.members)
        outside.formUnion(live.runningJobs)
        ids.append(contentsOf: outside)
        var work: [PendingWork] = []
        var seen: Set<Identifier> = []
        var outsideWaiting = 0
        for id in ids where seen.insert(id).inserted {
            guard let job = jobs[id], let item = pendingWork(job, now: now) else { continue }
            if outside.contains(id), !due.contains(id), !ready.contains(id), !conditionHeld.contains(id),
               !budgetHeld.contains(id) {
                outsideWaiting += 1
            }
            work.append(item)
        }
        work.sort(by: Self.byEarliestBegin(now))
        var listed = Array(work.prefix(limit))
        if listed.count < limit {
            listed += queuedSubmissions().prefix(limit - listed.count).map { pendingWork($0) }
        }
        let total = due.count + ready.count + conditionHeld.count + budgetHeld.count + outsideWaiting
            + queuedTotal
        return (listed, total)
    }

    /// The `limit` entries of a ready or condition-held heap that come first by earliest
    /// begin. The heap orders by (due since, identifier), and "due since" is never later than
    /// the earliest begin (earlier only for catch-up slots); so entries are taken in heap order
    /// until the last one taken sorts after the `limit`-th by (earliest begin, identifier): no
    /// later one can come first. Ties count — a thousand jobs due at the same instant end the
    /// walk after `limit`, not after the whole heap. Usually `limit` entries; during a
    /// catch-up, the catch-up jobs at most.
    func firstByEarliestBegin(_ queue: DeadlineQueue<Identifier, TimedKey>, _ limit: Int) -> [Identifier] {
        guard limit > 0 else { return [] }
        var k = limit
        while true {
            let top = queue.smallest(k)
            let begins = top.compactMap { entry in
                // A closure, not `flatMap(candidate)`: a method reference would copy the whole
                // Scheduler (every stored property retained) once per entry.
                jobs[entry.key].flatMap { candidate($0) }.map { TimedKey(time: $0.eligibleAt, identifier: entry.key) }
            }.sorted()
            guard top.count == k, begins.count >= limit, let last = top.last,
                  last.priority < begins[limit - 1]
            else { return top.map(\.key) }
            k *= 2
        }
    }

    /// A discretionary job's entry in `pending`, when it wants to run and something holds it.
    func pendingWork(_ job: JobSchedule, now: SchedulerTime) -> PendingWork? {
        guard job.isDiscretionary, let candidate = candidate(job, now: now),
              let reason = blocker(job, candidate, now: now) else { return nil }
        return PendingWork(identifier: job.identifier, kind: job.definition.kind,
                           earliestBegin: candidate.eligibleAt, waitingFor: reason, submission: nil,
                           request: job.request.requested)
    }

    /// A queued submission's entry in `pending`.
    func pendingWork(_ item: QueuedSubmission) -> PendingWork {
        PendingWork(identifier: item.submission.identifier, kind: .continued, earliestBegin: nil,
                    waitingFor: continuedBlocker(item.submission) ?? .maxConcurrent,
                    submission: item.submission)
    }

    /// Earliest begin first (none counts as now), then by identifier.
    static func byEarliestBegin(_ now: SchedulerTime) -> (PendingWork, PendingWork) -> Bool {
        { a, b in
            let ta = a.earliestBegin ?? now, tb = b.earliestBegin ?? now
            return ta != tb ? ta < tb : a.identifier < b.identifier
        }
    }

    /// Why `id` is not running now: the reason a registered job waits (`notDue` when it has
    /// no interval and nothing pending; `running` while its run is live), or nil when it is
    /// not registered or could start at once (`status` and `list` show it).
    public func waitReason(for id: Identifier, now: SchedulerTime) -> WaitReason? {
        guard let job = jobs[id] else { return nil }
        if job.isDiscretionary {
            if let candidate = candidate(job, now: now) { return blocker(job, candidate, now: now) }
            if job.restricted { return .restricted }
            if disabled.contains(id) { return .denied }
            if live.isRunning(id) { return .running }
            return .notDue
        }
        if job.restricted { return .restricted }
        if disabled.contains(id) { return .denied }
        if let first = queues[id]?.first {
            return continuedBlocker(first.submission) ?? .maxConcurrent
        }
        return .notDue
    }

    /// `agentctl explain ID`: the identifier's recent timeline, oldest first (at most the last
    /// 100 entries). For a continued job it includes its submissions' entries; a dynamic
    /// submission identifier has its own.
    public func explain(_ id: Identifier) -> [TimelineEntry] {
        timeline.entries(id) ?? []
    }

    /// Everything to persist: history, budget, people's choices and every pending request.
    public var snapshot: PersistedSchedule {
        PersistedSchedule(
            lastRunStart: lastRunStart.values, lastSuccess: lastSuccess.values,
            consecutiveFailures: consecutiveFailures.values, disabled: disabled.members, paused: paused,
            budgetDay: budgets.template.day, budgetSpent: budgets.template.spent,
            budgetLedgers: budgets.entries, pendingTriggers: pendingTriggers.members,
            submissions: queuedSubmissions().map(\.submission) + orphanSubmissions,
            lastTriggerLaunch: lastTriggerLaunch.values, pendingRetries: pendingRetries.values,
            pendingChained: pendingChained.members, pendingRequests: pendingRequests.values)
    }

    /// The rows this event touched and the agent-wide part; written at once when a request
    /// changed or a reply waits for them.
    mutating func takeChanges() -> (ScheduleChanges, PersistCadence) {
        let requests = pendingTriggers.takeChanges().union(pendingRetries.takeChanges())
            .union(pendingChained.takeChanges()).union(disabled.takeChanges())
            .union(pendingRequests.takeChanges())
        let history = lastRunStart.takeChanges().union(lastSuccess.takeChanges())
            .union(consecutiveFailures.takeChanges()).union(lastTriggerLaunch.takeChanges())
        var records: [Identifier: IdentifierSchedule] = [:]
        for id in requests.union(history) {
            records[id] = IdentifierSchedule(
                lastRunStart: lastRunStart[id], lastSuccess: lastSuccess[id],
                consecutiveFailures: consecutiveFailures[id], disabled: disabled.contains(id),
                pendingTrigger: pendingTriggers.contains(id), pendingRetry: pendingRetries[id],
                pendingChained: pendingChained.contains(id), lastTriggerLaunch: lastTriggerLaunch[id],
                pendingRequest: pendingRequests[id])
        }
        let globals = PersistedSchedule(
            paused: paused, budgetDay: budgets.template.day, budgetSpent: budgets.template.spent,
            budgetLedgers: budgets.entries, submissions: queuedSubmissions().map(\.submission) + orphanSubmissions)
        let isRequest = !requests.isEmpty || globals.paused != lastGlobals.paused
            || globals.submissions != lastGlobals.submissions
        lastGlobals = globals
        return (ScheduleChanges(records: records, globals: globals), isRequest || persistNow ? .now : .batched)
    }

    /// The conditions the scheduler decides by.
    public var currentConditions: Conditions { conditions }

    /// Whether work runs or waits for a slot or a condition: the shell samples thermal zones
    /// only then (DESIGN §6: "sampled only while work runs or is due").
    public var hasWorkRunningOrDue: Bool {
        live.total > 0 || !ready.isEmpty || !conditionHeld.isEmpty || !budgetHeld.isEmpty || queuedTotal > 0
    }

    /// Whether any job has `RequiresIdle=yes` (the shell watches CPU pressure only then).
    public var needsCPUIdleSignal: Bool { !idleJobs.isEmpty }

    /// Why a run is frozen, if it is (`paused: <reason>` in status).
    public func frozenReason(_ run: RunID) -> ConditionHold? { frozen[run]?.hold }

    /// Live runs the scheduler counts (launched and not yet ended): tests hold it against the
    /// runs their shell keeps.
    public var liveRunCount: Int { live.total }

    /// Whether `pause` is in force.
    public var isPaused: Bool { paused }

    /// Discretionary launches left today, summed over every manifest's budget, for `status`.
    /// Saturates at `AgentSettings.unlimitedDailyBudget`: one `DailyBudget=infinity` manifest
    /// (the shipped `local.manifest`) beside any other must not overflow the sum.
    public func budgetRemaining(now: SchedulerTime) -> Int {
        budgetStandings(now: now).reduce(0) { sum, standing in
            let (total, overflow) = sum.addingReportingOverflow(standing.remaining)
            return overflow ? AgentSettings.unlimitedDailyBudget : total
        }
    }

    // MARK: - Shared helpers

    /// The candidate at the time of the event being handled.
    func candidate(_ job: JobSchedule) -> LaunchCandidate? { candidate(job, now: clockNow) }

    func candidate(_ job: JobSchedule, now: SchedulerTime) -> LaunchCandidate? {
        job.candidate(lastRunStart: lastRunStart[job.identifier],
                      triggerSpacing: settings.triggerSpacing,
                      intervalFactor: LaunchPolicy.intervalFactor(job.definition.kind, conditions),
                      wallClock: wallClock(now), bootedAt: bootedAt)
    }

    /// The reason a discretionary job with `candidate` waits, in the documented order:
    /// restricted → denied → running → paused → its time gate (interval, retry, trigger
    /// spacing, catch-up) → budget → max concurrent. nil: it could launch now. A live run's
    /// job whose time gate holds too shows the gate: when it is next due says more than
    /// `running`, which `status` shows beside it anyway.
    func blocker(_ job: JobSchedule, _ candidate: LaunchCandidate, now: SchedulerTime) -> WaitReason? {
        if job.restricted { return .restricted }
        if disabled.contains(job.identifier) { return .denied }
        if live.isRunning(job.identifier) { return candidate.eligibleAt > now ? candidate.timeGate : .running }
        if stopping { return .agentStopping }
        if paused { return .paused }
        if candidate.eligibleAt > now {
            // A spent budget that refills only after the gate opens is what it really waits for.
            if let spent = budgetBlocker(job, now: now), let refill = spent.time, refill > candidate.eligibleAt {
                return spent
            }
            return candidate.timeGate
        }
        if let hold = launchHold(job, now: now) { return .condition(hold) }
        if let held = sharedBlocker(job, now: now) { return held }
        if let holding = holdingSince, catchUpPending { return .catchUp(at: holding) }
        return nil
    }

    /// Its manifest's budget, then max concurrent: what holds due discretionary work (paused
    /// aside).
    func sharedBlocker(_ job: JobSchedule, now: SchedulerTime) -> WaitReason? {
        if let spent = budgetBlocker(job, now: now) { return spent }
        if live.total >= settings.maxConcurrent { return .maxConcurrent }
        return nil
    }

    /// What holds a queued submission: restricted → denied → (otherwise max concurrent).
    func continuedBlocker(_ submission: Submission) -> WaitReason? {
        if jobs[submission.jobIdentifier]?.restricted == true || settings.denies(submission.identifier) {
            return .restricted
        }
        if disabled.contains(submission.jobIdentifier) || disabled.contains(submission.identifier) {
            return .denied
        }
        if let hold = continuedHold(submission.jobIdentifier) { return .condition(hold) }
        if stopping { return .agentStopping }
        if live.total >= settings.maxConcurrent { return .maxConcurrent }
        return nil
    }

    /// Every queued submission of registered jobs, FIFO.
    func queuedSubmissions() -> [QueuedSubmission] {
        var all: [QueuedSubmission] = []
        for queue in queues.values { all.append(contentsOf: queue.all) }
        all.sort { $0.sequence < $1.sequence }
        return all
    }

    /// The registered job an identifier resolves to: itself, or the longest registered
    /// dot-prefix (`com.example.export.<uuid>` → `com.example.export`); itself when none.
    func resolveJob(_ id: Identifier) -> Identifier {
        if jobs[id] != nil { return id }
        return id.parents.first { jobs[$0] != nil } ?? id
    }

    /// Writes a timeline entry under the job (and under `id` too when it is a different,
    /// dynamic identifier).
    mutating func note(_ id: Identifier, job: Identifier? = nil, _ event: TimelineEvent,
                       now: SchedulerTime)
    {
        let owner = job ?? id
        let entry = TimelineEntry(time: now, identifier: id, event: event)
        timeline.record(owner, entry, persistentKey: jobs[owner] != nil)
        if owner != id {
            timeline.record(id, entry, persistentKey: jobs[id] != nil)
        }
    }

    mutating func log(_ line: String) {
        output.append(.log(line))
    }
}
