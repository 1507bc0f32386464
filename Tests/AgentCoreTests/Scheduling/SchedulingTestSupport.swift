// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore

/// 2026-11-30 00:00:00 UTC.
let midnightUTC = SchedulerTime(seconds: 1_795_996_800)
/// 2026-11-30 08:00:00 UTC: most simulations start here, far from midnight.
let morning = midnightUTC + .seconds(8 * 3600)

func at(_ base: SchedulerTime, _ offset: Duration) -> SchedulerTime { base + offset }

func minutes(_ n: Double) -> Duration { .seconds(n * 60) }
func hours(_ n: Double) -> Duration { .seconds(n * 3600) }

/// A job definition with the scheduling keys tests care about.
func job(_ name: String, _ kind: JobKind = .refresh, interval: Duration? = nil,
         retry: RetryPolicy? = nil, onSuccess: String? = nil) -> JobDefinition
{
    var definition = JobDefinition(identifier: id(name), kind: kind,
                                   exec: ["/usr/lib/agentd/plugins/\(name)"])
    definition.interval = kind == .continued ? nil : interval
    definition.retry = retry
    definition.onSuccess = onSuccess.map(id)
    return definition
}

func settings(maxConcurrent: Int = 4, dailyBudget: Int = 48, triggerSpacing: Duration = .seconds(900),
              catchUpSpread: Duration = .seconds(300), deny: [String] = []) -> AgentSettings
{
    AgentSettings(maxConcurrent: maxConcurrent, dailyBudget: dailyBudget,
                  triggerSpacing: triggerSpacing, catchUpSpread: catchUpSpread,
                  deny: deny.compactMap(IdentifierPattern.init(rawValue:)))
}

func submission(_ name: String, job jobName: String? = nil, strategy: SubmitStrategy = .queue,
                request: Int64, title: String? = nil) -> Submission
{
    Submission(identifier: id(name), jobIdentifier: id(jobName ?? name), title: title,
               strategy: strategy, requestID: request)
}

/// One launch the simulation saw.
struct Launch: Equatable {
    var time: SchedulerTime
    var job: Identifier
    var reason: RunReason
    var submission: Submission?
    var run: RunID
    /// What an `OnSuccess=` chain handed on.
    var chainedInput: ChainedInput? = nil
}

/// A virtual-time driver around a `Scheduler`: it plays the shell. Launches are reported
/// started at once; runs end after their job's duration (10 s unless set; `nil` = until
/// `end(_:)` is called) with the outcome `outcome` picks. Ticks happen exactly at
/// `nextDeadline`.
struct Simulation {
    var scheduler: Scheduler
    var now: SchedulerTime
    var launches: [Launch] = []
    var logs: [String] = []
    var replies: [Int64: SubmitOutcome] = [:]
    var persisted: PersistedSchedule?
    var durations: [Identifier: Duration?] = [:]
    var defaultDuration: Duration? = .seconds(10)
    var outcome: (Identifier, Int) -> StopReason = { _, _ in .success }
    /// The `RESULT=` each run ends with (by identifier and run count); none unless set.
    var result: (Identifier, Int) -> String? = { _, _ in nil }
    var ticks = 0
    /// Policy actions the shell was asked to carry out, in order.
    var expiries: [(run: RunID, reason: ExpiryReason)] = []
    var freezes: [(run: RunID, hold: ConditionHold)] = []
    var thaws: [RunID] = []
    var weights: [(run: RunID, lowered: Bool)] = []
    /// Expired runs end at once (as if the plugin exited on SIGTERM) unless this is false.
    var expiredRunsEndAtOnce = true

    private var runCounts: [Identifier: Int] = [:]
    /// Runs live in the simulated shell: run → (identifier as reported, end time if timed).
    private(set) var liveRuns: [RunID: (identifier: Identifier, endsAt: SchedulerTime?)] = [:]
    private var scheduled: [(time: SchedulerTime, order: Int, event: SchedulerEvent)] = []
    private var order = 0

    init(settings: AgentSettings = AgentSettings(), calendar: LocalCalendar = .utc,
         seed: UInt64 = 42, start: SchedulerTime = morning, jobs: [JobDefinition] = [],
         restored: PersistedSchedule? = nil, durations: [String: Duration?] = [:])
    {
        scheduler = Scheduler(settings: settings, calendar: calendar, seed: seed)
        now = start
        for (name, duration) in durations { self.durations[id(name)] = .some(duration) }
        if let restored { send(.restored(restored)) }
        if !jobs.isEmpty { send(.jobsChanged(jobs)) }
        settle()
    }

    /// Handles one event now and plays the resulting actions.
    @discardableResult
    mutating func send(_ event: SchedulerEvent) -> [SchedulerAction] {
        if case .tick = event { ticks += 1 }
        if case .restored(let snapshot) = event { persisted = snapshot }
        let actions = scheduler.handle(event, now: now)
        play(actions)
        return actions
    }

    private mutating func play(_ actions: [SchedulerAction]) {
        var started: [(Identifier, RunID, RunReason)] = []
        var expired: [(RunID, ExpiryReason)] = []
        defer {
            if expiredRunsEndAtOnce {
                for (run, reason) in expired { end(run, .expired(reason)) }
            }
        }
        for action in actions {
            switch action {
            case .launch(let order):
                let job = order.job.identifier
                let reason = order.reason
                let submission = order.submission
                let run = order.run
                launches.append(Launch(time: now, job: job, reason: reason, submission: submission, run: run,
                                       chainedInput: order.chainedInput))
                let reported = submission?.identifier ?? job
                let duration = durations[job] ?? defaultDuration
                liveRuns[run] = (reported, duration.map { now + $0 })
                started.append((reported, run, reason))
            case .reply(let request, let outcome):
                replies[request] = outcome
            case .persist(let changes, _):
                // What the database holds: every change applied to what it held before.
                persisted = (persisted ?? .empty).applying(changes)
            case .log(let line):
                logs.append(line)
            case .expire(let run, let reason):
                expiries.append((run, reason))
                expired.append((run, reason))
            case .freeze(let run, let hold):
                freezes.append((run, hold))
            case .thaw(let run):
                thaws.append(run)
            case .setCPUWeight(let run, let isLowered):
                weights.append((run, isLowered))
            }
        }
        for (identifier, run, reason) in started {
            play(scheduler.handle(.runStarted(identifier, run, reason: reason), now: now))
        }
    }

    /// Ends a live run now (its outcome from `outcome` unless given).
    mutating func end(_ run: RunID, _ stop: StopReason? = nil) {
        guard let live = liveRuns.removeValue(forKey: run) else { return }
        let count = runCounts[live.identifier, default: 0] + 1
        runCounts[live.identifier] = count
        send(.runEnded(live.identifier, run, stop ?? outcome(live.identifier, count),
                       result: result(live.identifier, count)))
    }

    /// Schedules an event at a virtual time.
    mutating func schedule(_ event: SchedulerEvent, at time: SchedulerTime) {
        order += 1
        scheduled.append((time, order, event))
    }

    /// Processes everything due at `now` (run ends, scheduled events, a tick if due).
    mutating func settle() {
        advance(to: now)
    }

    /// Moves virtual time forward to `limit`, stopping at every run end, scheduled event and
    /// `nextDeadline` on the way, in that order at equal times.
    mutating func advance(to limit: SchedulerTime) {
        var guardCount = 0
        while true {
            guardCount += 1
            precondition(guardCount < 1_000_000, "simulation does not progress")
            let nextEnd = liveRuns.values.compactMap(\.endsAt).min()
            let nextEvent = scheduled.map(\.time).min()
            let deadline = scheduler.nextDeadline
            let candidates = [nextEnd, nextEvent, deadline].compactMap { $0 }
            guard let next = candidates.min(), next <= limit else { break }
            if next > now { now = next }
            let ending = liveRuns.compactMap { run, live in
                live.endsAt.flatMap { $0 <= now ? (time: $0, run: run) : nil }
            }
            if let first = ending.min(by: { ($0.time, $0.run) < ($1.time, $1.run) }) {
                end(first.run)
                continue
            }
            if let index = scheduled.indices.filter({ scheduled[$0].time <= now })
                .min(by: { (scheduled[$0].time, scheduled[$0].order) < (scheduled[$1].time, scheduled[$1].order) })
            {
                let event = scheduled.remove(at: index).event
                send(event)
                continue
            }
            if let deadline, deadline <= now {
                send(.tick)
            }
        }
        if limit > now { now = limit }
    }

    mutating func advance(by span: Duration) {
        advance(to: now + span)
    }

    func launches(of name: String) -> [Launch] {
        launches.filter { $0.job == id(name) }
    }

    func waiting(_ name: String) -> WaitReason? {
        scheduler.waiting(now: now).first { $0.identifier == id(name) }?.waitingFor
    }

    /// The live run of a job in the simulated shell.
    func run(of name: String) -> RunID? {
        liveRuns.filter { $0.value.identifier == id(name) }.keys.min()
    }
}

extension Optional where Wrapped == WaitReason {
    /// When the budget that holds it refills, if a budget holds it.
    var budgetRefill: SchedulerTime? {
        if case .budget(let standing)? = self { return standing.refillsAt }
        return nil
    }
}
