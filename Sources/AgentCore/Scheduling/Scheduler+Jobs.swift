// SPDX-License-Identifier: Apache-2.0
/// Registered jobs, settings, people's choices and restored state.
extension Scheduler {
    /// The full set of registered jobs now. New jobs start their history here (a new job
    /// without history is due at once); changed ones are re-planned; removed ones disappear
    /// with their pending requests and queued submissions. Restored requests for identifiers
    /// registered now are attached; those still unregistered are dropped.
    mutating func jobsChanged(_ definitions: [JobDefinition], now: SchedulerTime) {
        var incoming: [Identifier: JobDefinition] = [:]
        for definition in definitions { incoming[definition.identifier] = definition }

        for id in jobs.keys.filter({ incoming[$0] == nil }).sorted() {
            removeJob(id, now: now)
        }
        for id in incoming.keys.sorted() {
            guard let definition = incoming[id] else { continue }
            upsert(definition, now: now)
        }
        dropOrphans(now: now)
    }

    /// Applies a change to some jobs only: what one config reload changed. Costs O(changed · log n),
    /// not O(n), so a reload does not get slower with the number of jobs loaded.
    mutating func jobsUpdated(_ changed: [JobDefinition], removed: [Identifier], now: SchedulerTime) {
        for id in removed.sorted() where jobs[id] != nil {
            removeJob(id, now: now)
        }
        for definition in changed.sorted(by: { $0.identifier < $1.identifier }) {
            upsert(definition, now: now)
        }
        dropOrphans(now: now)
    }

    private mutating func upsert(_ definition: JobDefinition, now: SchedulerTime) {
        let id = definition.identifier
        if definition.requiresIdle { idleJobs.insert(id) } else { idleJobs.remove(id) }
        if definition.extra.wakeSystem, definition.schedule != nil { wakeJobs.insert(id) } else { wakeJobs.remove(id) }
        do {
            if var job = jobs[id] {
                guard job.definition != definition else { return }
                let wasContinued = !job.isDiscretionary
                job.definition = definition
                jobs[id] = job
                if wasContinued != !job.isDiscretionary {
                    // Kind changed between continued and discretionary: what was pending no
                    // longer fits.
                    dropPending(id, now: now, why: "its kind changed")
                }
                note(id, .registered, now: now)
                reschedule(id, now: now)
                refreshContinued(id)
            } else {
                let job = JobSchedule(definition: definition, firstSeen: now,
                                      restricted: settings.denies(id))
                if job.restricted { restrictedJobs.insert(id) }
                jobs[id] = job
                note(id, .registered, now: now)
                if job.isDiscretionary {
                    let kept = restoredRequest(id, now: now)
                    jobs[id]?.request = kept
                }
                reschedule(id, now: now)
            }
        }
    }

    /// Restored requests and submissions whose identifier is not a registered job of the
    /// right kind: attached when it is, dropped otherwise.
    mutating func dropOrphans(now: SchedulerTime) {
        func isDiscretionaryJob(_ id: Identifier) -> Bool { jobs[id]?.isDiscretionary == true }
        let strayTriggers = pendingTriggers.filter { !isDiscretionaryJob($0) }
        let strayRetries = pendingRetries.keys.filter { !isDiscretionaryJob($0) }
        let strayChains = pendingChained.filter { !isDiscretionaryJob($0) }
        let strayRequests = pendingRequests.keys.filter { !isDiscretionaryJob($0) }
        let stray = Set(strayTriggers).union(strayRetries).union(strayChains).union(strayRequests)
        for id in stray.sorted() {
            pendingRequests[id] = nil
            pendingTriggers.remove(id)
            pendingRetries[id] = nil
            pendingChained.remove(id)
            log("\(id): pending request dropped: not a registered refresh or processing job")
            dirty = true
        }
        guard !orphanSubmissions.isEmpty else { return }
        let orphans = orphanSubmissions
        orphanSubmissions = []
        dirty = true
        for submission in orphans {
            let jobID = submission.jobIdentifier
            guard let job = jobs[jobID], !job.isDiscretionary else {
                log("\(submission.identifier): queued submission (request \(submission.requestID)) "
                    + "dropped: \(jobID) is not a registered continued job")
                continue
            }
            enqueueKept(submission, now: now)
        }
    }

    /// A submission the database kept from before the restart, back in its job's queue.
    private mutating func enqueueKept(_ submission: Submission, now: SchedulerTime) {
        enqueue(submission)
        note(submission.identifier, job: submission.jobIdentifier, .kept(.submission(requestID: submission.requestID)),
             now: now)
    }

    /// Appends to a continued job's queue (no limit check: callers decide).
    @discardableResult
    mutating func enqueue(_ submission: Submission) -> Int {
        let jobID = submission.jobIdentifier
        nextSequence += 1
        queues[jobID, default: SubmissionQueue()].append(
            QueuedSubmission(sequence: nextSequence, submission: submission))
        queuedTotal += 1
        refreshContinued(jobID)
        dirty = true
        return queuedTotal
    }

    mutating func removeJob(_ id: Identifier, now: SchedulerTime) {
        dropPending(id, now: now, why: "the job was removed")
        due.remove(id)
        ready.remove(id)
        conditionHeld.remove(id)
        budgetHeld.remove(id)
        continuedReady.remove(id)
        continuedHeld.remove(id)
        restrictedJobs.remove(id)
        idleJobs.remove(id)
        wakeJobs.remove(id)
        windowCloses.remove(id)
        note(id, .removed, now: now)
        jobs[id] = nil
    }

    /// Drops every pending request and queued submission of a job.
    mutating func dropPending(_ id: Identifier, now: SchedulerTime, why: String) {
        if var job = jobs[id] {
            job.request = PendingRequest()
            job.catchUp = nil
            jobs[id] = job
        }
        if pendingTriggers.remove(id) != nil { dirty = true }
        if pendingRetries.removeValue(forKey: id) != nil { dirty = true }
        if pendingChained.remove(id) != nil { dirty = true }
        if pendingRequests.removeValue(forKey: id) != nil { dirty = true }
        if let queue = queues.removeValue(forKey: id), !queue.isEmpty {
            queuedTotal = max(0, queuedTotal - queue.count)
            continuedReady.remove(id)
            continuedHeld.remove(id)
            dirty = true
            for item in queue.all {
                note(item.submission.identifier, job: id, .pendingCancelled, now: now)
            }
            log("\(id): \(queue.count) queued submission\(queue.count == 1 ? "" : "s") dropped: \(why)")
        }
    }

    /// New agentd.conf: `Deny=` re-evaluated for every job, trigger spacing for every pending
    /// trigger, `BatteryLow=`/`BatteryCritical=` for held and running work; budget and
    /// `MaxConcurrent` apply at the next decision.
    /// Chained requests still held by `TriggerSpacing=` wait for the new spacing instead.
    private mutating func respaceChainedRequests(now: SchedulerTime) {
        for (id, last) in chainSpacedAfter.sorted(by: { $0.key < $1.key }) {
            guard let chainedAt = jobs[id]?.request.chainedAt, chainedAt > now else {
                chainSpacedAfter[id] = nil
                continue
            }
            let at = max(now, TriggerSpacing.spacingEnd(lastLaunch: last, spacing: settings.triggerSpacing))
            jobs[id]?.request.chainedAt = at
            lastChainRequest[id] = at
            reschedule(id, now: now)
        }
    }

    mutating func settingsChanged(_ new: AgentSettings, now: SchedulerTime) {
        let old = settings
        settings = new
        if old.deny != new.deny {
            for id in jobs.keys.sorted() {
                let restricted = new.denies(id)
                guard jobs[id]?.restricted != restricted else { continue }
                jobs[id]?.restricted = restricted
                if restricted { restrictedJobs.insert(id) } else { restrictedJobs.remove(id) }
                reschedule(id, now: now)
                refreshContinued(id)
            }
        }
        if old.triggerSpacing != new.triggerSpacing {
            for id in pendingTriggers.sorted() where jobs[id] != nil {
                reschedule(id, now: now)
            }
            respaceChainedRequests(now: now)
        }
        if old.batteryLow != new.batteryLow || old.batteryCritical != new.batteryCritical {
            // The same battery level may now hold work back or release it, and runs may now
            // have lost (or regained) the battery they need: as if the conditions changed.
            reexamineHeldWork(now: now)
            applyRunPolicy(now: now)
        }
    }

    /// `agentctl enable|disable`: a disabled identifier is "denied" until enabled.
    mutating func setEnabled(_ id: Identifier, _ enabled: Bool, now: SchedulerTime) {
        if enabled {
            guard disabled.remove(id) != nil else { return }
            note(id, .enabled, now: now)
            log("\(id): enabled")
        } else {
            guard disabled.insert(id).inserted else { return }
            note(id, .disabled, now: now)
            log("\(id): disabled")
        }
        dirty = true
        if jobs[id] != nil {
            reschedule(id, now: now)
            refreshContinued(id)
        }
    }

    /// `agentctl pause|resume`: all discretionary work.
    mutating func setPaused(_ value: Bool, now: SchedulerTime) {
        guard paused != value else { return }
        paused = value
        dirty = true
        log(value ? "paused: discretionary work waits until resume (continued submissions still start)"
                  : "resumed: discretionary work runs again")
    }

    /// Start-up: takes what SQLite kept. Pending requests attach to registered jobs (the
    /// others wait for `.jobsChanged`), each budget ledger is kept if it is today's, and the
    /// next `.tick` plans the catch-up.
    mutating func restore(_ snapshot: PersistedSchedule, now: SchedulerTime) {
        lastRunStart = TrackedMap(snapshot.lastRunStart)
        lastSuccess = TrackedMap(snapshot.lastSuccess)
        consecutiveFailures = TrackedMap(snapshot.consecutiveFailures)
        disabled = TrackedSet(snapshot.disabled)
        paused = snapshot.paused
        lastTriggerLaunch = TrackedMap(snapshot.lastTriggerLaunch)
        budgets.restore(template: snapshot.budgetDay, spent: snapshot.budgetSpent,
                        ledgers: snapshot.budgetLedgers, now: now, calendar: calendar)
        if !accounts.isEmpty { _ = budgets.keepOnly(Set(accounts.names)) }
        pendingTriggers = TrackedSet(snapshot.pendingTriggers)
        pendingRetries = TrackedMap(snapshot.pendingRetries)
        pendingChained = TrackedSet(snapshot.pendingChained)
        pendingRequests = TrackedMap(snapshot.pendingRequests)
        lastGlobals = snapshot.globalsOnly

        for id in jobs.keys.sorted() {
            guard var job = jobs[id] else { continue }
            job.catchUp = nil
            job.announced = false
            if job.isDiscretionary {
                job.request = restoredRequest(id, now: now)
            } else {
                pendingTriggers.remove(id)
                pendingRetries[id] = nil
                pendingChained.remove(id)
                pendingRequests[id] = nil
            }
            jobs[id] = job
        }

        // Queued submissions: the restored ones, in their order, replace what was queued.
        for id in Array(queues.keys) { continuedReady.remove(id) }
        continuedHeld = []
        queues = [:]
        queuedTotal = 0
        orphanSubmissions = []
        for submission in snapshot.submissions {
            if let job = jobs[submission.jobIdentifier], !job.isDiscretionary {
                enqueueKept(submission, now: now)
            } else {
                orphanSubmissions.append(submission)
            }
        }
        for id in jobs.keys.sorted() { reschedule(id, now: now) }
        catchUpPending = true
        holdingSince = holdingSince ?? now
        dirty = true
        log("restored: \(snapshot.pendingTriggers.count + snapshot.pendingRetries.count + snapshot.pendingChained.count + snapshot.pendingRequests.count) "
            + "pending request(s), \(snapshot.submissions.count) queued submission(s); "
            + "overdue jobs catch up on the next tick")
    }
}

/// Wall-clock gates: `Schedule=`, `Window=`, `RandomizedDelay=`, `CatchUp=`.
extension Scheduler {
    /// The local-time rules and machine id jobs' wall-clock gates are computed with, at `now`.
    func wallClock(_ now: SchedulerTime) -> WallClockGate {
        WallClockGate(now: now, rule: offsetRule ?? FixedUTCOffset(seconds: calendar.utcOffsetSeconds),
                  machineID: machineID)
    }

    /// After a new local calendar: slots and windows of jobs that have them move with it.
    mutating func rescheduleWallClockJobs(now: SchedulerTime) {
        for (id, job) in jobs.sorted(by: { $0.key < $1.key })
            where job.definition.schedule != nil || !job.definition.windows.isEmpty
        {
            reschedule(id, now: now)
        }
    }

    /// `CatchUp=no` at the catch-up after downtime: a job whose `Schedule=` slot passed (while
    /// the agent was down or the machine asleep) skips it and waits for the next slot, like a
    /// systemd timer without `Persistent=`. True when it did.
    mutating func skipsMissedSlot(_ id: Identifier, _ candidate: LaunchCandidate, now: SchedulerTime) -> Bool {
        guard let job = jobs[id], job.definition.schedule != nil, !job.definition.catchUp,
              candidate.reason == .scheduled, candidate.dueSince <= now else { return false }
        jobs[id]?.skippedSlotsUntil = now
        log("\(id): Schedule= slot missed while the agent was down or asleep, skipped (CatchUp=no)")
        return true
    }

    /// A due job with `Window=` that now waits in the ready or condition-held heap: note when its
    /// window closes, so that it goes back to wait for the next opening then.
    mutating func trackWindowClose(_ id: Identifier, now: SchedulerTime) {
        guard let windows = jobs[id]?.definition.windows, !windows.isEmpty,
              let closes = TimeWindows.nextClose(windows, after: now, rule: wallClock(now).rule)
        else { return }
        windowCloses.set(id, TimedKey(time: closes, identifier: id))
    }

    /// Jobs whose window closed while they waited in the ready or condition-held heap go back to
    /// the due heap, until the window opens again.
    mutating func closeWindows(now: SchedulerTime) {
        while let top = windowCloses.min, top.priority.time <= now {
            windowCloses.remove(top.key)
            lastEventWork += 1
            if ready.contains(top.key) || conditionHeld.contains(top.key) || budgetHeld.contains(top.key) {
                reschedule(top.key, now: now)
            }
        }
    }
}
