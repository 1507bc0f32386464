// SPDX-License-Identifier: Apache-2.0
/// Requests from people and plugins: triggers, continued submissions, cancellations.
extension Scheduler {
    /// `agentctl trigger`: creates the identifier's pending request, or merges into it.
    mutating func trigger(_ id: Identifier, now: SchedulerTime) {
        guard let job = jobs[id] else {
            log("\(id): trigger ignored: not a registered job")
            return
        }
        guard job.isDiscretionary else {
            log("\(id): trigger ignored: a continued job starts only through agentctl submit")
            return
        }
        if job.request.triggeredAt != nil {
            note(id, .mergedTrigger, now: now)
        } else {
            jobs[id]?.request.triggeredAt = now
            pendingTriggers.insert(id)
            dirty = true
            note(id, .triggered, now: now)
        }
        held(id, now: now)
        reschedule(id, now: now)
    }

    /// `agentctl submit`: launched now, queued, or refused — always answered with `.reply`.
    ///
    /// Restricted and denied are refused for both strategies (no wait would cure them);
    /// `fail` is refused with the reason when no slot is free; `queue` waits in the job's
    /// queue of at most 16 (agent-wide FIFO).
    mutating func submit(_ submission: Submission, now: SchedulerTime) {
        let jobID = submission.jobIdentifier
        guard let job = jobs[jobID], !job.isDiscretionary else {
            refuse(submission, .notPermitted, now: now)
            return
        }
        if let reason = continuedBlocker(submission), reason != .maxConcurrent, reason != .agentStopping {
            // Restricted, denied, a critical battery or heat, a missing resource: no wait
            // cures them. Other conditions (network, external power) are waited for in the
            // queue, unless the submitter asked to fail.
            if case .condition(let hold) = reason, !hold.refusesSubmissions, submission.strategy == .queue {
                // queued below
            } else {
                refuse(submission, .cannotStartNow(reason), now: now)
                return
            }
        }
        if !stopping, live.total < settings.maxConcurrent, continuedReady.isEmpty,
           continuedHold(jobID) == nil
        {
            note(submission.identifier, job: jobID,
                 .submitted(requestID: submission.requestID, position: 0), now: now)
            launchSubmission(submission, now: now)
            // Accepted means durable: the run's start record is this submission's only trace,
            // so the event's write is synced before the reply.
            persistNow = true
            replies.append(.reply(requestID: submission.requestID, .accepted(position: 0)))
            return
        }
        if submission.strategy == .fail {
            refuse(submission, .cannotStartNow(stopping ? .agentStopping : .maxConcurrent), now: now)
            return
        }
        if queues[jobID]?.isFull == true {
            refuse(submission, .tooManyPending, now: now)
            return
        }
        let position = enqueue(submission)
        note(submission.identifier, job: jobID,
             .submitted(requestID: submission.requestID, position: position), now: now)
        log("\(submission.identifier): submission (request \(submission.requestID)) queued at "
            + "position \(position): \(queueReason(submission))")
        replies.append(.reply(requestID: submission.requestID, .accepted(position: position)))
    }

    /// `.launchNow`: a run now, outside policy. Refused while the agent stops, and while a
    /// refresh or processing job of that identifier already runs (one live run each).
    mutating func launchNow(_ id: Identifier, reason: RunReason, requestID: Int64, now: SchedulerTime) {
        let jobID = resolveJob(id)
        guard let job = jobs[jobID] else {
            replies.append(.reply(requestID: requestID, .refused(.notPermitted)))
            return
        }
        if stopping {
            replies.append(.reply(requestID: requestID, .refused(.cannotStartNow(.agentStopping))))
            return
        }
        if job.isDiscretionary, live.isRunning(jobID) {
            replies.append(.reply(requestID: requestID, .refused(.cannotStartNow(.running))))
            return
        }
        // run-if-stale (reason triggered) is an app's fallback, not a person's "run it now":
        // a job a person disabled stays disabled for it (`run` and `simulate launch` override).
        if reason == .triggered, disabled.contains(jobID) {
            replies.append(.reply(requestID: requestID, .refused(.cannotStartNow(.denied))))
            return
        }
        // Policy is bypassed, but not the suspend nor a hard stop (a battery under 5 %, thermal
        // critical): a run started now would be expired (or frozen) at once, as every run is
        // then (DESIGN §6), and nothing starts before sleep.
        if let stop = conditions.sleeping ? .sleep : LaunchPolicy.hardStop(conditions, settings) {
            replies.append(.reply(requestID: requestID, .refused(.cannotStartNow(.condition(stop)))))
            return
        }
        // Interval and trigger spacing count from it, like any run; pending requests stay.
        lastRunStart[jobID] = now
        dirty = true
        let run = newRunID()
        live.launched(CountedRun(identifier: jobID, job: jobID, reason: reason, oneAtATime: job.isDiscretionary,
                                 bypassedPolicy: true), as: run)
        note(jobID, .launched(reason), now: now)
        output.append(.launch(LaunchOrder(job: job.definition, reason: reason, run: run, requestID: requestID)))
        replies.append(.reply(requestID: requestID, .accepted(position: 0)))
        reschedule(jobID, now: now)
    }

    /// Why a queued submission waits, for the log.
    func queueReason(_ submission: Submission) -> String {
        if let hold = continuedHold(submission.jobIdentifier) { return "waiting for \(hold)" }
        if stopping { return "the agent is stopping: it starts after the restart" }
        return "max concurrent (\(live.total) of \(settings.maxConcurrent) runs live)"
    }

    mutating func refuse(_ submission: Submission, _ why: SubmitRefusal, now: SchedulerTime) {
        note(submission.identifier, job: jobs[submission.jobIdentifier] != nil ? submission.jobIdentifier : nil,
             .refused(requestID: submission.requestID, why), now: now)
        log("\(submission.identifier): submission (request \(submission.requestID)) refused: \(why)")
        replies.append(.reply(requestID: submission.requestID, .refused(why)))
    }

    /// `cancel-request`: drops pending requests — a discretionary job's request/trigger/retry/
    /// chain request (its interval and its live run stay, and so does a catch-up slot for what
    /// is still overdue without the request), or queued submissions — all of a continued job's,
    /// or those of one dynamic identifier (`exactly`: only those submitted with `id` itself).
    mutating func cancelPending(_ id: Identifier, exactly: Bool = false, now: SchedulerTime) {
        if let job = jobs[id], job.isDiscretionary {
            guard !job.request.isEmpty else { return }
            jobs[id]?.request = PendingRequest()
            keepCatchUpForWhatIsLeft(id, now: now)
            pendingTriggers.remove(id)
            pendingRetries[id] = nil
            pendingChained.remove(id)
            pendingRequests[id] = nil
            dirty = true
            note(id, .pendingCancelled, now: now)
            log("\(id): pending request withdrawn")
            reschedule(id, now: now)
            return
        }
        let jobID = resolveJob(id)
        let match = SubmissionMatch(id: id, exactly: exactly)
        var dropped: [QueuedSubmission] = []
        if var queue = queues[jobID] {
            dropped = queue.removeAll { match.covers($0.submission.identifier, job: jobID) }
            queues[jobID] = queue
            queuedTotal = max(0, queuedTotal - dropped.count)
            refreshContinued(jobID)
        }
        let orphanCount = orphanSubmissions.count
        orphanSubmissions.removeAll { match.covers($0.identifier, job: $0.jobIdentifier) }
        guard !dropped.isEmpty || orphanSubmissions.count != orphanCount else { return }
        dirty = true
        for item in dropped {
            note(item.submission.identifier, job: jobID, .pendingCancelled, now: now)
        }
        let requests = dropped.map { String($0.submission.requestID) }.joined(separator: ", ")
        log("\(id): \(dropped.count) queued submission\(dropped.count == 1 ? "" : "s") cancelled"
            + (requests.isEmpty ? "" : " (requests \(requests))"))
    }

    /// A catch-up slot planned for a request that is now withdrawn goes with it, unless the
    /// job is still overdue without it (its interval or `Schedule=` slot): then the slot stays,
    /// for that.
    private mutating func keepCatchUpForWhatIsLeft(_ id: Identifier, now: SchedulerTime) {
        guard var job = jobs[id], var slot = job.catchUp, slot.reason != .catchUp else { return }
        job.catchUp = nil
        if let rest = candidate(job, now: now), rest.eligibleAt <= slot.at {
            slot.reason = CatchUpSlot.reason(forOverdue: rest.reason)
            job.catchUp = slot
        }
        jobs[id] = job
    }
}
