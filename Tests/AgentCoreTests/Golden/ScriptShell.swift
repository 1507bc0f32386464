// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore

/// A run as the simulated shell sees it.
struct ShellRun {
    /// The identifier the shell reports it under (a submission's dynamic identifier).
    var identifier: Identifier
    var job: Identifier
    var reason: RunReason
    /// When it ends by itself; nil: only an `end` command (or an expiry) ends it.
    var endsAt: SchedulerTime?
    var outcome: StopReason
    /// While frozen: how long it still had to run.
    var frozenRemaining: Duration?
    var frozen = false
    /// What the last `.freeze` said holds it, while frozen.
    var frozenBy: ConditionHold?
    var expiring = false
}

/// How long runs of a job last and how they end (`runs ID 10s failure(1)`).
struct RunPlan {
    var duration: Duration?
    var outcome: StopReason = .success
}

/// The daemon around a `Scheduler`, in virtual time, as the golden scripts and the random
/// sequences drive it: it carries out actions (a launch is reported started at once), ticks
/// exactly at `nextDeadline`, keeps the database the `.persist` actions write, restarts from
/// it, and checks after every event the scheduler's invariants and the stated rules.
struct ScriptShell {
    var scheduler: Scheduler
    var now: SchedulerTime
    var settings: AgentSettings
    var calendar: LocalCalendar
    var seed: UInt64
    var format: ScriptFormat
    /// The full set of registered jobs, as the last `jobs`/`update`/`remove` left it.
    var jobs: [Identifier: JobDefinition] = [:]
    var runs: [RunID: ShellRun] = [:]
    var plans: [Identifier: RunPlan] = [:]
    var defaultPlan = RunPlan(duration: nil)
    /// Expired runs end at once, as a plugin that exits on SIGTERM does; false: they stay
    /// until an `end` command.
    var expiredRunsEnd = true
    /// What the `.persist` actions wrote: the database a restart reads.
    var database: PersistedSchedule?
    var eventsSent = 0
    /// The highest run id the scheduler gave out: a restarted one numbers after it, as the
    /// daemon's does after the highest run the store holds.
    var highestRun: UInt64 = 0
    var nextRequest: Int64 = 1
    /// Printed output of the current command.
    var output: [String] = []
    /// Print only launches (`advance … show=launches`).
    var launchesOnly = false
    /// Whether to format output at all (the random sequences do not read it).
    var printing = true
    var launchCount = 0
    /// Broken invariants and rules, with the event that broke them.
    var violations: [String] = []
    /// Discretionary launches per budget account (manifest) and local day, the shell's own
    /// ledgers against each manifest's `DailyBudget=` (agentd.conf's by default).
    var budgetLedger: [String: [String: Int]] = [:]
    /// The day and count an account without a ledger of its own starts from (the scheduler's
    /// template: the restored agent-wide ledger; in shared mode, the one ledger).
    var budgetTemplate: (day: String, spent: Int) = ("", 0)
    /// The manifests the script declared (`manifest NAME`), by name: the budget accounts.
    var manifests: [String: Manifest] = [:]
    /// Ends the shell owes after the current event (expired runs).
    private var pendingEnds: [(RunID, StopReason)] = []
    /// The next `restart` is a machine reboot: this boot starts when the agent does.
    var rebooting = false
    /// `locks shown`: print changes of the sleep delay and idle block inhibitors the scheduler wants.
    var showsLocks = false
    var locksSeen: (sleep: Bool, idle: [RunID]) = (false, [])

    static let start = SchedulerTime(seconds: 1_795_996_800 + 8 * 3600)  // 2026-11-30 08:00 UTC

    init(seed: UInt64 = 42, start: SchedulerTime = ScriptShell.start) {
        self.seed = seed
        settings = AgentSettings()
        calendar = .utc
        now = start
        format = ScriptFormat(start: start, calendar: .utc)
        scheduler = Scheduler(settings: settings, calendar: calendar, seed: seed)
        scheduler.bootedAt = start - .seconds(3600)
    }

    /// When the machine booted (`booted SPAN`: that long before the script starts; `reboot`).
    var bootedAt: SchedulerTime {
        get { scheduler.bootedAt ?? ScriptShell.start }
        set { scheduler.bootedAt = newValue }
    }

    mutating func emit(_ line: String) {
        if printing, !launchesOnly { output.append(line) }
    }

    // MARK: - Events

    /// Handles one event now, checks everything, carries out the actions. `header` (the
    /// time and what happened) introduces events the shell itself sent; their actions are
    /// indented under it.
    mutating func send(_ event: SchedulerEvent, header: String? = nil) {
        if let header, printing { emit("\(format.time(now)) \(header)") }
        let indent = header == nil ? "" : "  "
        let pausedBefore = scheduler.isPaused
        let actions = scheduler.handle(event, now: now)
        switch event {
        case .calendarChanged, .clockStepped:
            // A zone change or a clock step back into an earlier date carries what was spent
            // into that date (it refills at the next local midnight the clock reaches).
            let snapshot = scheduler.snapshot
            budgetTemplate = (snapshot.budgetDay, snapshot.budgetSpent)
            budgetLedger = snapshot.budgetLedgers.mapValues { [$0.day: $0.spent] }
        default:
            break
        }
        eventsSent += 1
        let (number, at) = (eventsSent, now)
        // Built only for a violation: formatting every event would cost more than checking it.
        let context = { [format] in "event \(number) (\(Self.name(event)) at \(format.time(at)))" }
        for problem in scheduler.checkInvariants(now: now) {
            violations.append("\(context()): invariant: \(problem)")
        }
        checkSummary(context: context)
        checkOrdering(actions, of: event, context: context)
        play(actions, indent: indent, context: context, pausedBefore: pausedBefore)
        checkDatabase(context: context)
        checkSleep(context: context)
        if showsLocks { showLocks(indent: indent) }
        let ends = pendingEnds
        pendingEnds = []
        for (run, stop) in ends { end(run, stop) }
    }

    /// Once the sleep lock goes while the machine is about to sleep, every live run is frozen:
    /// nothing is left running into the suspend.
    private mutating func checkSleep(context: () -> String) {
        guard scheduler.conditions.sleeping else { return }
        for (run, shellRun) in runs.sorted(by: { $0.key < $1.key }) {
            if !shellRun.frozen, !shellRun.expiring {
                violations.append("\(context()): \(format.run(run)) is neither frozen nor expiring before sleep")
            } else if !shellRun.frozen, !scheduler.wantsSleepLock {
                violations.append("\(context()): sleep lock released while \(format.run(run)) is not frozen")
            }
        }
    }

    private mutating func showLocks(indent: String) {
        let now = (sleep: scheduler.wantsSleepLock, idle: scheduler.idleLockRuns)
        if now.sleep != locksSeen.sleep { emit(indent + "sleep-lock \(now.sleep ? "taken" : "released")") }
        for run in now.idle where !locksSeen.idle.contains(run) { emit(indent + "idle-lock \(format.run(run)) taken") }
        for run in locksSeen.idle where !now.idle.contains(run) { emit(indent + "idle-lock \(format.run(run)) released") }
        locksSeen = now
    }

    private mutating func play(_ actions: [SchedulerAction], indent: String, context: () -> String,
                               pausedBefore: Bool)
    {
        var started: [(Identifier, RunID, RunReason)] = []
        for action in actions {
            var launched: RunID?
            switch action {
            case .launch(let order):
                let (job, reason, submission) = (order.job.identifier, order.reason, order.submission)
                let run = order.run
                highestRun = max(highestRun, run.number)
                launched = run
                checkLaunch(job, reason, submission, outsidePolicy: order.requestID != nil, context: context)
                let plan = plans[job] ?? defaultPlan
                let reported = submission?.identifier ?? job
                runs[run] = ShellRun(identifier: reported, job: job, reason: reason,
                                     endsAt: plan.duration.map { now + $0 }, outcome: plan.outcome)
                started.append((reported, run, reason))
                launchCount += 1
                if launchesOnly, printing {
                    output.append("\(format.time(now)) \(format.action(action, launchedAs: run))")
                }
            case .persist(let changes, _):
                database = (database ?? .empty).applying(changes)
            case .expire(let run, let reason):
                if runs[run] == nil || runs[run]?.expiring == true {
                    violations.append("\(context()): expire \(format.run(run)), which is not live or already expiring")
                }
                runs[run]?.expiring = true
                if expiredRunsEnd, runs[run] != nil { pendingEnds.append((run, .expired(reason))) }
            case .freeze(let run, let hold):
                // A frozen run may be told what holds it now, never the same hold twice.
                if runs[run] == nil || runs[run]?.frozenBy == hold {
                    violations.append("\(context()): freeze \(format.run(run)), which is not live or already frozen for that")
                }
                freeze(run)
                runs[run]?.frozenBy = hold
            case .thaw(let run):
                if runs[run]?.frozen != true { violations.append("\(context()): thaw \(format.run(run)), which is not frozen") }
                thaw(run)
            case .setCPUWeight(let run, _):
                if runs[run] == nil { violations.append("\(context()): CPU weight of \(format.run(run)), which is not live") }
            case .reply, .log:
                break
            }
            if printing, !launchesOnly { output.append(indent + format.action(action, launchedAs: launched)) }
        }
        for (identifier, run, reason) in started {
            let more = scheduler.handle(.runStarted(identifier, run, reason: reason), now: now)
            eventsSent += 1
            for problem in scheduler.checkInvariants(now: now) {
                violations.append("\(context()), then run-started \(format.run(run)): invariant: \(problem)")
            }
            play(more, indent: indent, context: { [format] in context() + ", then run-started \(format.run(run))" }, pausedBefore: false)
        }
    }

    private mutating func freeze(_ run: RunID) {
        guard var shellRun = runs[run], !shellRun.frozen else { return }
        shellRun.frozen = true
        shellRun.frozenRemaining = shellRun.endsAt.map { $0.duration(since: now) }
        shellRun.endsAt = nil
        runs[run] = shellRun
    }

    private mutating func thaw(_ run: RunID) {
        guard var shellRun = runs[run], shellRun.frozen else { return }
        shellRun.frozen = false
        shellRun.frozenBy = nil
        shellRun.endsAt = shellRun.frozenRemaining.map { now + $0 }
        shellRun.frozenRemaining = nil
        runs[run] = shellRun
    }

    /// Ends a live run now with `stop` (its plan's outcome when nil).
    mutating func end(_ run: RunID, _ stop: StopReason? = nil) {
        guard let shellRun = runs.removeValue(forKey: run) else { return }
        let result = stop ?? shellRun.outcome
        send(.runEnded(shellRun.identifier, run, result), header: "end \(format.run(run)) \(result)")
    }

    /// A run the shell starts itself (`agentctl simulate launch`): refused while the job runs.
    /// `agentctl simulate launch`: a `.launchNow` the scheduler decides, as the daemon sends it.
    mutating func simulate(_ id: Identifier) -> Bool {
        let request = nextRequest
        nextRequest += 1
        let before = launchCount
        send(.launchNow(id, reason: .simulated, requestID: request))
        return launchCount > before
    }

    /// The registered job an identifier resolves to: itself or its longest registered dot-prefix.
    func resolve(_ id: Identifier) -> Identifier {
        if jobs[id] != nil { return id }
        var raw = Substring(id.rawValue)
        while let dot = raw.lastIndex(of: ".") {
            raw = raw[..<dot]
            if let prefix = Identifier(rawValue: String(raw)), jobs[prefix] != nil { return prefix }
        }
        return id
    }

    // MARK: - Time

    /// Fires everything due at `now`: run ends, then ticks.
    mutating func settle() { advance(to: now) }

    /// Moves virtual time to `limit`, stopping at every run end and every `nextDeadline` on
    /// the way, as the daemon's loop does (run ends first at equal times).
    mutating func advance(to limit: SchedulerTime) {
        var ticksAtThisInstant = 0
        var lastTick: SchedulerTime?
        while true {
            let nextEnd = runs.compactMap { run, live in live.endsAt.map { (time: $0, run: run) } }
                .min { ($0.time, $0.run) < ($1.time, $1.run) }
            let deadline = scheduler.nextDeadline
            let candidates = [nextEnd?.time, deadline].compactMap { $0 }
            guard let next = candidates.min(), next <= limit else { break }
            if next > now { now = next }
            if let nextEnd, nextEnd.time <= now {
                end(nextEnd.run)
                continue
            }
            if lastTick == now {
                ticksAtThisInstant += 1
                if ticksAtThisInstant > 20 {
                    violations.append("at \(format.time(now)): the scheduler's deadline stays at now after \(ticksAtThisInstant) ticks (it would spin)")
                    break
                }
            } else {
                ticksAtThisInstant = 1
            }
            lastTick = now
            send(.tick, header: "tick")
        }
        if limit > now { now = limit }
    }

    /// The agent is down for `downtime` and starts again: live runs are recorded
    /// `agent-restart` (the new scheduler never hears of them), then the daemon's start-up:
    /// restored, settings, jobs.
    mutating func restart(after downtime: Duration) {
        for run in runs.keys.sorted() { emit("\(format.run(run)) recorded agent-restart") }
        runs = [:]
        pendingEnds = []
        now = now + downtime
        let booted = bootedAt
        scheduler = Scheduler(settings: settings, calendar: calendar, seed: seed)
        scheduler.numberRuns(after: highestRun)
        scheduler.bootedAt = rebooting ? now : booted
        rebooting = false
        if let database { send(.restored(database)) }
        send(.settingsChanged(settings))
        send(.budgetsChanged(BudgetAccounts(manifests)))
        send(.jobsChanged(jobs.keys.sorted().compactMap { jobs[$0] }))
        settle()
    }

    /// A suspend of `span`: runs are frozen with the machine, then the shell reports it.
    mutating func suspend(for span: Duration) {
        now = now + span
        for run in Array(runs.keys) {
            let endsAt = runs[run]?.endsAt
            runs[run]?.endsAt = endsAt.map { $0 + span }
        }
        send(.resumedAfterDowntime)
        settle()
    }

    // MARK: - Rules

    /// The stated rules at each launch: one live run per refresh/processing identifier, no
    /// discretionary launch while paused, past the budget, past `MaxConcurrent=`, of a
    /// restricted or denied identifier, or while a condition holds it.
    private mutating func checkLaunch(_ job: Identifier, _ reason: RunReason, _ submission: Submission?,
                                      outsidePolicy: Bool, context: () -> String)
    {
        let rules = scheduler.settings
        let name = "launch of \(job) (\(reason.rawValue))"
        // simulate launch / run-if-stale bypass policy, not the one-run-per-identifier rule.
        if outsidePolicy {
            if scheduler.jobs[job]?.definition.kind != .continued, runs.values.contains(where: { $0.job == job }) {
                violations.append("\(context()): \(name) while a run of \(job) is live")
            }
            return
        }
        if runs.count >= rules.maxConcurrent {
            violations.append("\(context()): \(name) with \(runs.count) runs live, MaxConcurrent=\(rules.maxConcurrent)")
        }
        let ids = [job] + (submission.map { [$0.identifier] } ?? [])
        for id in ids where rules.denies(id) { violations.append("\(context()): \(name): \(id) is restricted (Deny=)") }
        for id in ids where scheduler.disabled.contains(id) { violations.append("\(context()): \(name): \(id) is disabled") }
        if let definition = scheduler.jobs[job]?.definition,
           let hold = LaunchPolicy.hold(definition, scheduler.conditions, rules, now: now)
        {
            violations.append("\(context()): \(name) though \(hold) holds it")
        }
        guard reason != .submitted else { return }
        if runs.values.contains(where: { $0.job == job }) {
            violations.append("\(context()): \(name) while a run of \(job) is live")
        }
        if scheduler.isPaused { violations.append("\(context()): \(name) while paused") }
        let day = calendar.dayKey(now)
        let kind = scheduler.jobs[job]?.definition.kind ?? .refresh
        let (account, limit) = budgetAccount(job, kind: kind, defaultLimit: rules.dailyBudget)
        // An account without a ledger starts from the template, which is the shared account's
        // ledger while no manifest is declared.
        let start = budgetLedger[BudgetAccounts.fallback]?[day]
            ?? (budgetTemplate.day == day ? budgetTemplate.spent : 0)
        let spent = budgetLedger[account]?[day] ?? start
        budgetLedger[account, default: [:]][day] = spent + 1
        if spent + 1 > limit {
            violations.append("\(context()): \(name) is discretionary launch \(spent + 1) of the day of \(account)'s budget, DailyBudget=\(limit)")
        }
    }

    /// The account rule, written out again independently of `BudgetAccounts`: of the manifests
    /// permitting the identifier and kind, the most specific pattern (exact, then the longest
    /// prefix), then the first name; `all` when no manifest is declared.
    func budgetAccount(_ id: Identifier, kind: JobKind, defaultLimit: Int) -> (String, Int) {
        var best: (score: Int, name: String)?
        for (name, manifest) in manifests where manifest.backgroundModes.contains(kind) {
            for pattern in manifest.permitted where pattern.matches(id) {
                let score: Int
                switch pattern {
                case .exact: score = Int.max
                case .prefix(let prefix): score = prefix.utf8.count
                }
                if let current = best, current.score > score || (current.score == score && current.name.utf8.lexicographicallyPrecedes(name.utf8)) {
                    continue
                }
                best = (score, name)
            }
        }
        // No manifest permits it while some are declared: it must not launch at all.
        guard let best else { return ("all", manifests.isEmpty ? defaultLimit : 0) }
        return (best.name, manifests[best.name]?.dailyBudget ?? defaultLimit)
    }

    /// Replaces every manifest at once (the random sequences).
    mutating func setManifests(_ all: [String: Manifest]) {
        for name in manifests.keys where all[name] == nil { budgetLedger[name] = nil }
        manifests = all
        send(.budgetsChanged(BudgetAccounts(manifests)))
    }

    /// Declares (or with nil removes) a manifest: the scheduler gets the new accounts; a removed
    /// manifest's ledger goes.
    mutating func setManifest(_ name: String, _ manifest: Manifest?) {
        manifests[name] = manifest
        if manifest == nil { budgetLedger[name] = nil }
        send(.budgetsChanged(BudgetAccounts(manifests)))
        settle()
    }

    /// Launches and logs, then at most one persist, then the replies; a submit gets exactly one
    /// reply, and an accepted one only after a persist written at once (accepted means durable).
    private mutating func checkOrdering(_ actions: [SchedulerAction], of event: SchedulerEvent, context: () -> String) {
        var phase = 0
        var persists = 0
        var persistedNow = false
        var replies: [Int64] = []
        for action in actions {
            switch action {
            case .persist(_, let cadence):
                persists += 1
                persistedNow = cadence == .now
                if phase > 1 { violations.append("\(context()): a persist after a reply") }
                phase = max(phase, 1)
            case .reply(let request, let outcome):
                replies.append(request)
                phase = 2
                if case .submit = event, case .accepted = outcome, !persistedNow {
                    violations.append("\(context()): submission \(request) accepted before a write made it durable")
                }
            default:
                if phase > 0 { violations.append("\(context()): \(format.action(action, launchedAs: nil)) after the persist or a reply") }
            }
        }
        if persists > 1 { violations.append("\(context()): \(persists) persists in one event") }
        if case .submit(let submission) = event {
            if replies != [submission.requestID] {
                violations.append("\(context()): submit \(submission.requestID) answered by replies \(replies)")
            }
        } else if case .request(_, _, let request) = event {
            if replies != [request] {
                violations.append("\(context()): request \(request) answered by replies \(replies)")
            }
        } else if case .launchNow(_, _, let request) = event {
            if replies != [request] {
                violations.append("\(context()): launch-now \(request) answered by replies \(replies)")
            }
        } else if !replies.isEmpty {
            violations.append("\(context()): replies \(replies) to no submit")
        }
    }

    /// `status`'s summary lists the first entries of `pending` and counts them all.
    /// (Not before the first tick: due jobs then wait for it, and the summary counts them
    /// while `pending` does not — for the instant until the loop's first iteration.)
    private mutating func checkSummary(context: () -> String) {
        guard scheduler.firstTickSeen else { return }
        let full = scheduler.waiting(now: now)
        let summary = scheduler.waitingSummary(now: now, limit: 3)
        if summary.total != full.count || summary.work != Array(full.prefix(3)) {
            violations.append("\(context()): the status summary (\(summary.total): \(summary.work.map(\.identifier))) disagrees with pending (\(full.count): \(full.prefix(3).map(\.identifier)))")
        }
        // `pending ID`: one identifier's entries are pending's entries for it, in its order.
        let ids = Set(full.map(\.identifier) + full.compactMap(\.submission?.identifier) + scheduler.jobs.keys)
        for id in ids {
            let one = scheduler.waiting(for: id, now: now)
            let filtered = full.filter { $0.identifier == id || $0.submission?.identifier == id }
            if one != filtered {
                violations.append("\(context()): pending for \(id) (\(one.count)) disagrees with pending filtered (\(filtered.count))")
            }
        }
    }

    /// What the persists wrote is what the scheduler would persist: nothing asked for is
    /// lost on a restart.
    private mutating func checkDatabase(context: () -> String) {
        guard let database else { return }
        let snapshot = scheduler.snapshot
        if database != snapshot {
            violations.append("\(context()): the database the persists wrote differs from the scheduler's snapshot: \(Self.difference(database, snapshot))")
        }
    }

    static func difference(_ a: PersistedSchedule, _ b: PersistedSchedule) -> String {
        var parts: [String] = []
        if a.lastRunStart != b.lastRunStart { parts.append("lastRunStart") }
        if a.lastSuccess != b.lastSuccess { parts.append("lastSuccess") }
        if a.consecutiveFailures != b.consecutiveFailures { parts.append("consecutiveFailures") }
        if a.disabled != b.disabled { parts.append("disabled") }
        if a.paused != b.paused { parts.append("paused") }
        if a.budgetLedgers != b.budgetLedgers { parts.append("budgetLedgers \(a.budgetLedgers) vs \(b.budgetLedgers)") }
        if a.budgetDay != b.budgetDay || a.budgetSpent != b.budgetSpent {
            parts.append("budget \(a.budgetDay):\(a.budgetSpent) vs \(b.budgetDay):\(b.budgetSpent)")
        }
        if a.pendingTriggers != b.pendingTriggers { parts.append("pendingTriggers \(a.pendingTriggers.sorted()) vs \(b.pendingTriggers.sorted())") }
        if a.submissions != b.submissions { parts.append("submissions \(a.submissions.map(\.requestID)) vs \(b.submissions.map(\.requestID))") }
        if a.lastTriggerLaunch != b.lastTriggerLaunch { parts.append("lastTriggerLaunch") }
        if a.pendingRetries != b.pendingRetries { parts.append("pendingRetries") }
        if a.pendingChained != b.pendingChained { parts.append("pendingChained") }
        if a.pendingRequests != b.pendingRequests { parts.append("pendingRequests") }
        return parts.joined(separator: "; ")
    }

    static func name(_ event: SchedulerEvent) -> String {
        switch event {
        case .jobsChanged(let jobs): "jobs-changed(\(jobs.count))"
        case .jobsUpdated(let changed, let removed): "jobs-updated(\(changed.count), -\(removed.count))"
        case .settingsChanged: "settings-changed"
        case .budgetsChanged: "budgets-changed"
        case .tick: "tick"
        case .runStarted(let id, let run, _): "run-started \(id) r\(run.number)"
        case .runEnded(let id, let run, let stop, _): "run-ended \(id) r\(run.number) \(stop)"
        case .runProgress(let run, let fraction): "progress r\(run.number) \(fraction)"
        case .conditionsChanged: "conditions-changed"
        case .trigger(let id): "trigger \(id)"
        case .submit(let submission): "submit \(submission.identifier) request \(submission.requestID)"
        case .cancelPending(let id): "cancel-request \(id)"
        case .request(let id, _, let request): "request \(id) request \(request)"
        case .setEnabled(let id, let enabled): "\(enabled ? "enable" : "disable") \(id)"
        case .setPaused(let paused): paused ? "pause" : "resume"
        case .restored: "restored"
        case .resumedAfterDowntime: "resumed-after-downtime"
        case .calendarChanged: "calendar-changed"
        case .clockStepped(let step): "clock-stepped \(step)"
        case .launchNow(let id, let reason, let request): "launch-now \(id) (\(reason.rawValue)) request \(request)"
        case .agentStopping: "agent-stopping"
        }
    }
}
