// SPDX-License-Identifier: Apache-2.0
/// The machine's conditions (DESIGN §6): holding work back while they are bad, and what
/// happens to running work when they turn — expiry, or freezing with `OnConditionLost=pause`.
extension Scheduler {
    /// How often, while memory pressure lasts, one more run is shed.
    static let pressureShedInterval: Duration = .seconds(10)

    mutating func conditionsChanged(_ new: Conditions, now: SchedulerTime) {
        let old = conditions
        guard new != old else { return }
        conditions = new
        presenceCheckedAt = now
        if old.lowPower != new.lowPower {
            // Refresh intervals stretch ×4 in low-power mode and shrink back after.
            for (id, job) in jobs where job.definition.kind == .refresh && job.definition.interval != nil {
                reschedule(id, now: now)
            }
        }
        reexamineHeldWork(now: now)
        applyRunPolicy(now: now)
        if new.memoryPressure, !old.memoryPressure { shedForPressure(now: now) }
        if !new.memoryPressure { nextShedAt = nil }
    }

    /// Ready (and budget-held) jobs that the new conditions hold move to the held heap, held jobs they release
    /// move back (with the same due-since key, so "most overdue first" holds); nothing is
    /// announced again. Continued queues likewise.
    mutating func reexamineHeldWork(now: SchedulerTime) {
        for (id, key) in ready.entries {
            guard let job = jobs[id], launchHold(job) != nil else { continue }
            ready.remove(id)
            conditionHeld.set(id, key)
        }
        for (id, key) in budgetHeld.entries {
            guard let job = jobs[id], launchHold(job) != nil else { continue }
            budgetHeld.remove(id)
            conditionHeld.set(id, key)
        }
        for (id, key) in conditionHeld.entries {
            guard let job = jobs[id], launchHold(job) == nil else { continue }
            conditionHeld.remove(id)
            ready.set(id, key)
            newlyReady.append(id)
        }
        for jobID in Array(queues.keys) { refreshContinued(jobID) }
    }

    /// Expires or freezes the runs whose conditions are gone (least progress first), thaws
    /// frozen runs whose conditions came back, and sets processing runs' CPU weight.
    mutating func applyRunPolicy(now: SchedulerTime) {
        let onBattery = !conditions.power.externalPower
        for (run, counted) in live.startedRuns.sorted(by: Self.leastProgressFirst) {
            guard let registered = jobs[counted.job]?.definition else {
                // A run whose job was removed still must not run into the suspend.
                if conditions.sleeping, frozen[run] == nil, !expiring.contains(run) {
                    expire(run, counted, .sleep, because: .sleep, now: now)
                }
                continue
            }
            // A run started for a request needs what the request asked for, too.
            let job = counted.requirements.isEmpty ? registered : counted.requirements.adding(to: registered)
            var lost = RunningWorkPolicy.lost(job, conditions, settings, now: now, policyBypassed: counted.bypassedPolicy)
            // Paused by the pressure step (not a rule of RunningWorkPolicy): thawed once it passes.
            if lost == nil, conditions.memoryPressure, frozen[run]?.hold == .memoryPressure { lost = .memoryPressure }
            if let frozenRun = frozen[run] {
                let presenceUnread = conditions.presence == .checking && frozenRun.hold.isUserPresence
                if lost == nil, !presenceUnread {
                    frozen[run] = nil
                    note(counted.identifier, job: counted.job, .thawed(run), now: now)
                    output.append(.thaw(run))
                } else if let lost, lost != frozenRun.hold {
                    if frozenRun.hold == .sleep, job.onConditionLost != .pause {
                        // Frozen only for the suspend (a continued run): what it lost since is
                        // an expiry, as it would have been awake.
                        frozen[run] = nil
                        expire(run, counted, lost.expiryReason, because: lost, now: now)
                        continue
                    }
                    frozen[run]?.hold = lost
                    // MaxPause= counts from the resume, not from before the suspend.
                    if frozenRun.hold == .sleep { frozen[run]?.expiresAt = now + job.maxPause }
                    // Still frozen, for another reason: status says which.
                    output.append(.freeze(run, lost))
                }
            } else if let lost, !expiring.contains(run) {
                if lost == .sleep ? SleepPolicy.freezes(job) : job.onConditionLost == .pause {
                    freeze(run, counted, lost, maxPause: job.maxPause, now: now)
                } else {
                    expire(run, counted, lost.expiryReason, because: lost, now: now)
                }
            }
            if job.kind == .processing, lowered.contains(run) != onBattery, !expiring.contains(run) {
                if onBattery { lowered.insert(run) } else { lowered.remove(run) }
                output.append(.setCPUWeight(run, lowered: onBattery))
            }
        }
    }

    /// Memory pressure: one run at a time, the least-progress continued run first (DESIGN §6),
    /// then the least-progress discretionary run; again every ``pressureShedInterval`` while
    /// pressure lasts. A run of an `OnConditionLost=pause` job is paused instead, as for any
    /// condition it loses (a converted `KillMode=process` service: its dpkg is never killed), and
    /// thawed when the pressure passes; a frozen run stalls on no memory and is not shed again.
    mutating func shedForPressure(now: SchedulerTime) {
        nextShedAt = now + Self.pressureShedInterval
        let candidates = sheddableRuns.sorted(by: Self.leastProgressFirst)
        let continued = candidates.first { jobs[$0.value.job]?.definition.kind == .continued }
        guard let (run, counted) = continued ?? candidates.first else { return }
        if let job = jobs[counted.job]?.definition, job.onConditionLost == .pause {
            freeze(run, counted, .memoryPressure, maxPause: job.maxPause, now: now)
        } else {
            expire(run, counted, .pressure, because: .memoryPressure, now: now)
        }
    }

    /// Live runs neither being stopped nor frozen.
    private var sheddableRuns: [RunID: CountedRun] {
        live.startedRuns.filter { !expiring.contains($0.key) && frozen[$0.key] == nil }
    }

    mutating func freeze(_ run: RunID, _ counted: CountedRun, _ hold: ConditionHold, maxPause: Duration,
                         now: SchedulerTime) {
        frozen[run] = FrozenRun(hold: hold, since: now, expiresAt: now + maxPause)
        note(counted.identifier, job: counted.job, .frozen(run, hold), now: now)
        output.append(.freeze(run, hold))
    }

    /// Frozen runs past `MaxPause=` are expired with the reason they were frozen for, in run
    /// order (a dictionary's order would follow the process's hash seed).
    mutating func expireOverduePauses(now: SchedulerTime) {
        // A run frozen for the suspend waits for the resume, however long the machine slept.
        for (run, frozenRun) in frozen.sorted(by: { $0.key < $1.key })
        where frozenRun.hold != .sleep && frozenRun.expiresAt <= now {
            frozen[run] = nil
            guard let counted = live.startedRuns[run] else { continue }
            log("\(counted.identifier): run \(run) paused longer than MaxPause=: expired")
            expire(run, counted, frozenRun.hold.expiryReason, because: frozenRun.hold, now: now)
        }
    }

    mutating func expire(_ run: RunID, _ counted: CountedRun, _ reason: ExpiryReason,
                         because hold: ConditionHold, now: SchedulerTime)
    {
        expiring.insert(run)
        note(counted.identifier, job: counted.job, .expiring(run, hold), now: now)
        log("\(counted.identifier): run \(run) expired: \(hold)")
        output.append(.expire(run, reason))
    }

    /// Runs without progress count as 0 %; ties by run number (oldest first).
    static func leastProgressFirst(_ a: (key: RunID, value: CountedRun),
                                   _ b: (key: RunID, value: CountedRun)) -> Bool
    {
        let pa = a.value.progress ?? 0, pb = b.value.progress ?? 0
        return pa != pb ? pa < pb : a.key < b.key
    }

    /// The earliest pause expiry or pressure step, for `nextDeadline`. A pressure step only
    /// while a run is left to shed: with none, the agent sleeps (DESIGN §6: never polled while
    /// nothing is due); a run that starts while pressure lasts brings the step back.
    var conditionDeadline: SchedulerTime? {
        let sheddable = live.startedRuns.keys.contains { !expiring.contains($0) && frozen[$0] == nil }
        var earliest = sheddable ? nextShedAt : nil
        if let threshold = nextPresenceThreshold(after: presenceCheckedAt ?? clockNow),
           earliest.map({ threshold < $0 }) ?? true {
            earliest = threshold
        }
        for frozenRun in frozen.values
        where frozenRun.hold != .sleep && (earliest.map({ frozenRun.expiresAt < $0 }) ?? true) {
            earliest = frozenRun.expiresAt
        }
        return earliest
    }

    /// On a tick: pauses past `MaxPause=`, the next pressure step.
    mutating func conditionTick(now: SchedulerTime) {
        expireOverduePauses(now: now)
        presenceThresholdsPassed(now: now)
        if let shed = nextShedAt, shed <= now {
            if conditions.memoryPressure { shedForPressure(now: now) } else { nextShedAt = nil }
        }
    }

    /// A RequiresIdle= job's IdleFor= passed while the user stayed away — at a tick, or during a
    /// suspend, with no tick at that moment: held work moves, frozen runs thaw. Looked at before
    /// every event. O(jobs with RequiresIdle=).
    mutating func presenceThresholdsPassed(now: SchedulerTime) {
        if let checked = presenceCheckedAt, let threshold = nextPresenceThreshold(after: checked), threshold <= now {
            presenceCheckedAt = now
            reexamineHeldWork(now: now)
            applyRunPolicy(now: now)
        }
    }

    /// Whether the shell should hold logind's sleep delay inhibitor: while any run is live;
    /// once the machine is about to sleep, only until every run is frozen or gone (then the
    /// suspend may go ahead).
    public var wantsSleepLock: Bool {
        conditions.sleeping ? live.total > frozen.count : live.total > 0
    }

    /// The live runs that hold an idle block inhibitor (`InhibitIdle=`), in run order.
    public var idleLockRuns: [RunID] {
        live.startedRuns.filter { _, counted in
            jobs[counted.job].map { SleepPolicy.inhibitsIdle($0.definition) } ?? false
        }.keys.sorted()
    }

    /// What holds a continued job's queue under the current conditions.
    func continuedHold(_ jobID: Identifier) -> ConditionHold? {
        guard let job = jobs[jobID] else { return nil }
        return launchHold(job)
    }

    /// What holds `job` back now (`IdleFor=` judged at `now`, the event's time by default).
    func launchHold(_ job: JobSchedule, now: SchedulerTime? = nil) -> ConditionHold? {
        LaunchPolicy.hold(job.policyDefinition, conditions, settings, now: now ?? clockNow)
    }

    /// When the next `RequiresIdle=` job's `IdleFor=` is reached while the user is away
    /// (after `now`): a tick then lets it start. O(jobs with RequiresIdle=).
    func nextPresenceThreshold(after now: SchedulerTime) -> SchedulerTime? {
        guard case .away(let since) = conditions.presence else { return nil }
        var earliest: SchedulerTime?
        for id in idleJobs {
            guard let job = jobs[id] else { continue }
            let at = since + job.definition.extra.idleFor
            if at > now, earliest.map({ at < $0 }) ?? true { earliest = at }
        }
        return earliest
    }
}

/// A run frozen by `OnConditionLost=pause`.
struct FrozenRun: Sendable, Hashable {
    var hold: ConditionHold
    var since: SchedulerTime
    /// `MaxPause=` after it froze: expired then if still frozen.
    var expiresAt: SchedulerTime
}
