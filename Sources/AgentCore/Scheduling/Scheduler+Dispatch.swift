// SPDX-License-Identifier: Apache-2.0
/// Deciding launches: moving due jobs into the ready heap, launching what the blockers allow,
/// and the catch-up plan.
extension Scheduler {
    /// Runs after every event: starts queued submissions while slots are free, then — unless
    /// discretionary launches are held (before the first tick, or until the tick that plans a
    /// catch-up) — moves jobs whose time has come into the ready heap and
    /// launches from it, most overdue first, while not paused, the budget lasts and slots are
    /// free. Jobs that became due and stay held get one `deferred` entry.
    /// While the agent stops, due work still moves between the heaps (so every query stays
    /// true) but nothing launches.
    mutating func dispatch(now: SchedulerTime) {
        if !stopping { launchQueuedSubmissions(now: now) }
        guard holdingSince == nil else { return }
        promoteDue(now: now)
        releaseRefilledBudgets(now: now)
        while !stopping, !paused, live.total < settings.maxConcurrent, let top = ready.popMin() {
            lastEventWork += 1
            // A job whose manifest has spent its budget waits apart, so the other manifests'
            // work behind it still launches.
            if let job = jobs[top.key], case let account = budgetAccount(job), !hasBudget(account, now: now) {
                // Every ready job of the spent account waits apart at once: one pass over the
                // heap, where moving each as it came up cost 22 ms for 10,000 due jobs.
                let jobs = jobs, accounts = accounts
                let rest = ready.removeAll { id in
                    jobs[id].map { accounts.account(for: id, kind: $0.definition.kind) == account } ?? false
                }
                budgetHeld.hold([(top.key, top.priority)] + rest, account: account)
                lastEventWork += rest.count
                continue
            }
            launchDiscretionary(top.key, now: now)
        }
        if !newlyReady.isEmpty {
            let stillWaiting = newlyReady.filter { ready.contains($0) || budgetHeld.contains($0) }
            newlyReady = []
            var held: [(Identifier, WaitReason)] = []
            for id in stillWaiting {
                guard let reason = stopping ? WaitReason.agentStopping : paused ? WaitReason.paused
                    : jobs[id].flatMap({ sharedBlocker($0, now: now) }) else { continue }
                held.append((id, reason))
            }
            // One timeline entry each, but one log line per reason for a crowd (10,000 new
            // jobs at the first start must not write 10,000 lines).
            let quiet = held.count > Self.deferralLogLimit
            var counts: [WaitReason: Int] = [:]
            for (id, reason) in held {
                deferred(id, reason, now: now, logged: !quiet)
                counts[reason, default: 0] += 1
            }
            if quiet {
                for (reason, count) in counts.sorted(by: { "\($0.key)" < "\($1.key)" }) {
                    log("\(count) due jobs deferred: \(reason)\(detail(reason))")
                }
            }
        }
    }

    /// Due heap → ready heap for every job whose time has come.
    mutating func promoteDue(now: SchedulerTime) {
        closeWindows(now: now)
        // Taken off together and put back together: a start with every job due moves thousands.
        let taken = due.popAll { $0.time <= now }
        var later: [(key: Identifier, priority: TimedKey)] = []
        var readyNow: [(key: Identifier, priority: TimedKey)] = []
        var heldNow: [(key: Identifier, priority: TimedKey)] = []
        defer {
            due.setAll(later)
            ready.setAll(readyNow)
            conditionHeld.setAll(heldNow)
        }
        for top in taken {
            lastEventWork += 1
            guard let job = jobs[top.key], let candidate = candidate(job, now: now) else { continue }
            guard candidate.eligibleAt <= now else {
                later.append((top.key, TimedKey(time: candidate.eligibleAt, identifier: top.key)))
                continue
            }
            let hold = launchHold(job)
            let key = TimedKey(time: candidate.dueSince, identifier: top.key)
            if hold != nil { heldNow.append((top.key, key)) } else { readyNow.append((top.key, key)) }
            trackWindowClose(top.key, now: now)
            if !job.announced {
                jobs[top.key]?.announced = true
                note(top.key, .becameDue(candidate.reason, since: candidate.dueSince), now: now)
                if let hold {
                    deferred(top.key, .condition(hold), now: now)
                } else {
                    newlyReady.append(top.key)
                }
            }
        }
    }

    /// Puts a discretionary job where it belongs after anything about it changed: nowhere
    /// (restricted, denied, running, nothing wanted), the due heap (waiting for its time) or
    /// the ready heap (already due and waiting there).
    mutating func reschedule(_ id: Identifier, now: SchedulerTime) {
        due.remove(id)
        let wasReady = [ready.remove(id), conditionHeld.remove(id), budgetHeld.remove(id)].contains { $0 != nil }
        if let key = place(id, wasReady: wasReady, now: now) { due.set(id, key) }
    }

    /// `reschedule` for jobs in none of the heaps (just taken off them), their due-heap entries
    /// put back in one go.
    mutating func rescheduleTaken(_ ids: [Identifier], now: SchedulerTime) {
        var later: [(key: Identifier, priority: TimedKey)] = []
        for id in ids {
            if let key = place(id, wasReady: false, now: now) { later.append((id, key)) }
        }
        due.setAll(later)
    }

    /// Places a job taken off every heap: nowhere (nil, restricted and the rest), the ready or
    /// condition-held heap (it was ready and still is), or the due heap at the returned key.
    private mutating func place(_ id: Identifier, wasReady: Bool, now: SchedulerTime) -> TimedKey? {
        lastEventWork += 1
        windowCloses.remove(id)
        guard let job = jobs[id], job.isDiscretionary else { return nil }
        guard !job.restricted, !disabled.contains(id), !live.isRunning(id),
              let candidate = candidate(job, now: now)
        else {
            jobs[id]?.announced = false
            return nil
        }
        if wasReady, candidate.eligibleAt <= now {
            let key = TimedKey(time: candidate.dueSince, identifier: id)
            if launchHold(job) != nil {
                conditionHeld.set(id, key)
            } else {
                ready.set(id, key)
            }
            trackWindowClose(id, now: now)
            return nil
        }
        if candidate.eligibleAt > now { jobs[id]?.announced = false }
        return TimedKey(time: candidate.eligibleAt, identifier: id)
    }

    /// Starts one discretionary job: consumes its pending request and catch-up slot, records
    /// the launch for interval, trigger spacing and budget, and counts it live.
    mutating func launchDiscretionary(_ id: Identifier, now: SchedulerTime) {
        guard var job = jobs[id], let candidate = candidate(job, now: now) else { return }
        guard candidate.eligibleAt <= now else {
            due.set(id, TimedKey(time: candidate.eligibleAt, identifier: id))
            return
        }
        // A launch that serves a chain request, whatever its reason, hands on what chained it.
        let chainedInput = job.request.chainedInput
        let requirements = job.request.requested?.requirements ?? RequestRequirements()
        job.request = PendingRequest()
        job.catchUp = nil
        job.announced = false
        jobs[id] = job
        windowCloses.remove(id)
        pendingTriggers.remove(id)
        pendingRetries[id] = nil
        pendingChained.remove(id)
        pendingRequests[id] = nil
        lastRunStart[id] = now
        if candidate.reason == .triggered { lastTriggerLaunch[id] = now }
        budgets.spend(budgetAccount(job))
        let run = newRunID()
        live.launched(CountedRun(identifier: id, job: id, reason: candidate.reason, oneAtATime: true,
                                 requirements: requirements), as: run)
        note(id, .launched(candidate.reason), now: now)
        output.append(.launch(LaunchOrder(job: job.definition, reason: candidate.reason, run: run,
                                          chainedInput: chainedInput)))
        dirty = true
    }

    /// Queued continued submissions, FIFO across jobs, while slots are free.
    mutating func launchQueuedSubmissions(now: SchedulerTime) {
        while live.total < settings.maxConcurrent, let top = continuedReady.min {
            let jobID = top.key
            guard let item = queues[jobID]?.popFirst() else {
                continuedReady.remove(jobID)
                queues[jobID] = nil
                continue
            }
            queuedTotal = max(0, queuedTotal - 1)
            dirty = true
            refreshContinued(jobID)
            if let reason = continuedBlocker(item.submission), reason != .maxConcurrent {
                // Only a submission whose own dynamic identifier became forbidden gets here.
                note(item.submission.identifier, job: jobID, .pendingCancelled, now: now)
                log("\(item.submission.identifier): queued submission (request "
                    + "\(item.submission.requestID)) dropped: \(reason)")
                continue
            }
            launchSubmission(item.submission, now: now)
        }
    }

    mutating func launchSubmission(_ submission: Submission, now: SchedulerTime) {
        let jobID = submission.jobIdentifier
        guard let job = jobs[jobID] else { return }
        lastRunStart[jobID] = now
        let run = newRunID()
        live.launched(CountedRun(identifier: submission.identifier, job: jobID, reason: .submitted), as: run)
        note(submission.identifier, job: jobID, .launched(.submitted), now: now)
        output.append(.launch(LaunchOrder(job: job.definition, reason: .submitted, run: run, submission: submission)))
        dirty = true
    }

    /// Whether a continued job's queue may start: non-empty, not restricted, not denied.
    mutating func refreshContinued(_ jobID: Identifier) {
        continuedHeld.remove(jobID)
        guard let job = jobs[jobID], !job.isDiscretionary, let first = queues[jobID]?.first,
              !job.restricted, !disabled.contains(jobID)
        else {
            continuedReady.remove(jobID)
            if queues[jobID]?.isEmpty == true { queues[jobID] = nil }
            return
        }
        if continuedHold(jobID) != nil {
            continuedReady.remove(jobID)
            continuedHeld.insert(jobID)
            return
        }
        continuedReady.set(jobID, first.sequence)
    }

    /// Deferral log lines beyond this many per event are summed up in one.
    static let deferralLogLimit = 8

    /// One `deferred` timeline entry, and a log line unless `logged` is false.
    mutating func deferred(_ id: Identifier, _ reason: WaitReason, now: SchedulerTime,
                           logged: Bool = true)
    {
        note(id, .deferred(reason), now: now)
        if logged { log("\(id): due, deferred: \(reason)\(detail(reason))") }
    }

    /// The numbers behind a global blocker, for log lines.
    func detail(_ reason: WaitReason) -> String {
        switch reason {
        case .budget(let standing):
            " (\(standing.used) of \(standing.limit) discretionary launches used today; "
                + "refills at local midnight)"
        case .maxConcurrent:
            " (\(live.total) of \(settings.maxConcurrent) runs live)"
        default:
            ""
        }
    }

    /// The first tick after start-up or downtime: every overdue discretionary job (it has run
    /// before or has a pending request, and its time has come) gets exactly one catch-up slot;
    /// slots are seeded pseudo-random offsets in `[0, CatchUpSpread)`, the earliest going to
    /// the most overdue. A job overdue by ten intervals still runs once.
    mutating func planCatchUp(now: SchedulerTime) {
        var overdue: [(id: Identifier, since: SchedulerTime, reason: RunReason)] = []
        var others: [Identifier] = []
        func consider(_ id: Identifier) {
            guard let job = jobs[id], let candidate = candidate(job, now: now) else { return }
            if skipsMissedSlot(id, candidate, now: now) {
                others.append(id)
            } else if candidate.eligibleAt <= now,
               lastRunStart[id] != nil || !job.request.isEmpty || job.catchUp != nil
            {
                overdue.append((id, candidate.dueSince, CatchUpSlot.reason(forOverdue: candidate.reason)))
            } else {
                others.append(id)
            }
        }
        let taken = due.popAll { $0.time <= now } + ready.popAll { _ in true }
            + conditionHeld.popAll { _ in true } + budgetHeld.takeAll()
        for top in taken {
            lastEventWork += 1
            consider(top.key)
        }
        rescheduleTaken(others, now: now)
        guard !overdue.isEmpty else { return }
        overdue.sort { $0.since != $1.since ? $0.since < $1.since : $0.id < $1.id }
        let slots = CatchUp.slots(count: overdue.count, now: now, spread: settings.catchUpSpread,
                                  random: &random)
        for (index, entry) in overdue.enumerated() {
            let slot = slots[index]
            jobs[entry.id]?.catchUp = CatchUpSlot(at: slot, dueSince: entry.since, reason: entry.reason)
            jobs[entry.id]?.announced = false
            note(entry.id, .catchUpScheduled(at: slot, for: entry.reason), now: now)
        }
        rescheduleTaken(overdue.map(\.id), now: now)
        log("catch-up: \(overdue.count) overdue job\(overdue.count == 1 ? "" : "s") run once each, "
            + "spread over \(TimeSpan.format(settings.catchUpSpread)), most overdue first")
    }
}
