// SPDX-License-Identifier: Apache-2.0
/// The pending request of a refresh or processing identifier: at most one, into which every
/// trigger, retry and chain request merges (DESIGN §4: "1 (re-requests merge)"). A launch of
/// the identifier, for any reason, consumes it.
struct PendingRequest: Sendable, Hashable {
    /// When the first unserved trigger arrived.
    var triggeredAt: SchedulerTime?
    /// When the `Retry=` backoff ends.
    var retryAt: SchedulerTime?
    /// When an `OnSuccess=` chain asked for it.
    var chainedAt: SchedulerTime?
    /// What the run whose success asked for it handed on (the latest such run); in memory only.
    var chainedInput: ChainedInput?
    /// `agentctl request` (BGTaskScheduler's `submit`): its own earliest begin and
    /// requirements; a new one replaces it.
    var requested: RunRequest?

    var isEmpty: Bool { triggeredAt == nil && retryAt == nil && chainedAt == nil && requested == nil }

    /// What its parts ask for, in a fixed order.
    var parts: [RunReason] {
        [requested.map { _ in .requested }, triggeredAt.map { _ in .triggered },
         retryAt.map { _ in .retry }, chainedAt.map { _ in .chained }].compactMap { $0 }
    }
}

/// A catch-up slot after downtime.
struct CatchUpSlot: Sendable, Hashable {
    /// When it may launch.
    var at: SchedulerTime
    /// When it became due, for "most overdue first".
    var dueSince: SchedulerTime
    /// What the run is for: `catch-up` for a missed interval or `Schedule=` slot; a request,
    /// trigger, retry, chain or boot run that fell due meanwhile keeps its own reason (it is
    /// only spread with the others), so its history says what it served.
    var reason: RunReason = .catchUp

    /// The slot's reason for work that was overdue for `reason`.
    static func reason(forOverdue reason: RunReason) -> RunReason {
        reason == .scheduled ? .catchUp : reason
    }
}

/// When a discretionary job will want to launch next, and why: the earliest of its interval,
/// its pending request's parts and its catch-up slot.
struct LaunchCandidate: Sendable, Hashable {
    /// The earliest time it may launch (time gates only; blockers come on top).
    var eligibleAt: SchedulerTime
    /// How long it has been due counts from here: "most overdue first".
    var dueSince: SchedulerTime
    var reason: RunReason
    /// What it waits for while `now < eligibleAt`.
    var timeGate: WaitReason
}

/// The scheduler's view of one registered job.
struct JobSchedule: Sendable {
    var definition: JobDefinition
    /// When the scheduler first saw it: a new job without history is due from then.
    var firstSeen: SchedulerTime
    /// `Deny=` matches it (cached from the settings).
    var restricted: Bool
    /// A "became due" entry was written for the current due cycle.
    var announced = false
    /// `request`, `catchUp` and `skippedSlotsUntil`, out of line: most jobs have none of them
    /// most of the time, and then they cost a job 8 bytes instead of 112.
    private var waiting = OutOfLineWaitState.none

    init(definition: JobDefinition, firstSeen: SchedulerTime, restricted: Bool) {
        self.definition = definition
        self.firstSeen = firstSeen
        self.restricted = restricted
    }

    var request: PendingRequest {
        get { waiting.value.request }
        set { waiting.value.request = newValue }
    }
    var catchUp: CatchUpSlot? {
        get { waiting.value.catchUp }
        set { waiting.value.catchUp = newValue }
    }
    /// `CatchUp=no`: `Schedule=` slots up to here were missed while the agent was down or the
    /// machine asleep, and are skipped.
    var skippedSlotsUntil: SchedulerTime? {
        get { waiting.value.skippedSlotsUntil }
        set { waiting.value.skippedSlotsUntil = newValue }
    }

    var identifier: Identifier { definition.identifier }
    var isDiscretionary: Bool { definition.kind != .continued }

    /// What launch policy judges it by: its keys, plus a pending request's requirements
    /// (they add, never weaken). Any launch consumes the pending request, so they hold for the
    /// identifier's next launch whatever its reason.
    var policyDefinition: JobDefinition {
        guard let requirements = request.requested?.requirements, !requirements.isEmpty else { return definition }
        return requirements.adding(to: definition)
    }

    /// The next launch this job wants, or nil when it has none (no interval, nothing pending):
    /// it then never becomes due on its own.
    ///
    /// Ties between sources at the same time prefer, in order: the interval (`scheduled`),
    /// a retry, a chain, a request, a trigger — so a trigger that coincides with an interval run is
    /// served by it without counting as a triggered launch.
    ///
    /// With `wallClock` (the scheduler always passes it), `Schedule=` and `RandomizedDelay=` shape
    /// the scheduled launch and `Window=` holds every launch until a window is open.
    func candidate(lastRunStart: SchedulerTime?, triggerSpacing: Duration,
                   intervalFactor: Int = 1, wallClock: WallClockGate? = nil,
                   bootedAt: SchedulerTime? = nil) -> LaunchCandidate?
    {
        let base = timeGates(lastRunStart: lastRunStart, triggerSpacing: triggerSpacing,
                             intervalFactor: intervalFactor, wallClock: wallClock, bootedAt: bootedAt)
        guard let wallClock, let base else { return base }
        return wallClock.inWindow(definition.windows, base)
    }

    /// How long after boot a job the agent has counts as there at boot: the agent itself starts
    /// some seconds into it, a slow boot (a disk check) takes minutes.
    static let bootGrace: Duration = .seconds(600)

    /// `CatchUp=no` with `AfterBoot=`: a boot point that passed before the agent had the job (it
    /// was added later, or the agent started long after boot) is skipped until the next boot, as
    /// cron runs an `@reboot` line only when it starts at boot, and as `CatchUp=no` skips a
    /// `Schedule=` slot missed while the agent was down.
    func missedBootPoint(_ bootRunAt: SchedulerTime?, bootedAt: SchedulerTime?) -> Bool {
        guard !definition.catchUp, let bootRunAt, let bootedAt else { return false }
        return firstSeen > max(bootRunAt, bootedAt + Self.bootGrace)
    }

    private func timeGates(lastRunStart: SchedulerTime?, triggerSpacing: Duration,
                           intervalFactor: Int, wallClock: WallClockGate?, bootedAt: SchedulerTime?) -> LaunchCandidate?
    {
        if let slot = catchUp {
            return LaunchCandidate(eligibleAt: slot.at, dueSince: slot.dueSince, reason: slot.reason,
                                   timeGate: .catchUp(at: slot.at))
        }
        var best: LaunchCandidate?
        func consider(_ option: LaunchCandidate) {
            if let current = best, current.eligibleAt <= option.eligibleAt { return }
            best = option
        }
        // AfterBoot= (systemd's OnBootSec=): due SPAN after boot until a run has started at or
        // after that point (a run before it, a Schedule= slot or a request, does not stand in for
        // it: systemd's boot trigger elapses unless the unit was triggered since); until then the
        // interval waits (it counts from the boot run, as a monotonic timer's does), after it the
        // interval follows.
        let bootRunAt = bootedAt.flatMap { booted in definition.extra.afterBoot.map { booted + $0 } }
        let awaitsBootRun = definition.extra.afterBoot != nil && isDiscretionary
            && (bootRunAt == nil || lastRunStart.map { $0 < (bootRunAt ?? $0) } ?? true)
            && !missedBootPoint(bootRunAt, bootedAt: bootedAt)
        if awaitsBootRun, let afterBoot = definition.extra.afterBoot, let bootedAt {
            let at = bootedAt + afterBoot
            consider(LaunchCandidate(eligibleAt: at, dueSince: at, reason: .boot, timeGate: .afterBoot(earliest: at)))
        }
        if let wallClock, definition.schedule != nil || definition.randomizedDelay > .zero {
            if isDiscretionary, let scheduled = wallClock.scheduled(self, lastRunStart: lastRunStart,
                                                                    intervalFactor: intervalFactor)
            {
                consider(scheduled)
            }
        } else if let interval = definition.interval, isDiscretionary, !awaitsBootRun {
            // Until the boot launch the interval waits: that launch stands in for its first.
            let due = lastRunStart.map { $0 + interval * intervalFactor } ?? firstSeen
            consider(LaunchCandidate(eligibleAt: due, dueSince: due, reason: .scheduled,
                                     timeGate: .interval(earliest: due, factor: lastRunStart == nil ? 1 : intervalFactor)))
        }
        if let retryAt = request.retryAt {
            consider(LaunchCandidate(eligibleAt: retryAt, dueSince: retryAt, reason: .retry,
                                     timeGate: .retry(earliest: retryAt)))
        }
        if let chainedAt = request.chainedAt {
            // Later than its chaining only when TriggerSpacing= holds it (`chain(from:)`).
            consider(LaunchCandidate(eligibleAt: chainedAt, dueSince: chainedAt, reason: .chained,
                                     timeGate: .triggerSpacing(earliest: chainedAt)))
        }
        if let requested = request.requested {
            // Its own earliest begin: trigger spacing does not apply (the app chose the time).
            consider(LaunchCandidate(eligibleAt: requested.earliestBegin, dueSince: requested.earliestBegin,
                                     reason: .requested, timeGate: .requested(earliest: requested.earliestBegin)))
        }
        if let triggeredAt = request.triggeredAt {
            let earliest = TriggerSpacing.earliestLaunch(
                triggeredAt: triggeredAt, lastLaunch: lastRunStart, spacing: triggerSpacing)
            consider(LaunchCandidate(eligibleAt: earliest, dueSince: earliest, reason: .triggered,
                                     timeGate: .triggerSpacing(earliest: earliest)))
        }
        return best
    }
}

/// What a job waits with besides its interval: a pending request, a catch-up slot, missed slots.
struct JobWaitState: Sendable, Hashable {
    var request = PendingRequest()
    var catchUp: CatchUpSlot?
    var skippedSlotsUntil: SchedulerTime?
}

/// A `JobWaitState` on the heap when it is not empty, nothing when it is.
enum OutOfLineWaitState: Sendable {
    case none
    indirect case some(JobWaitState)

    var value: JobWaitState {
        get {
            if case .some(let state) = self { return state }
            return JobWaitState()
        }
        set { self = newValue == JobWaitState() ? .none : .some(newValue) }
    }
}
