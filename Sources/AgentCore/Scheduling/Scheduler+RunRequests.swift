// SPDX-License-Identifier: Apache-2.0
/// Run-time requests of refresh and processing work (`agentctl request`, BGTaskScheduler's
/// `submit(BGAppRefreshTaskRequest)`; DESIGN §4) and what `cancel-request` withdraws.
extension Scheduler {
    /// `agentctl request`: the identifier's pending request, replacing the one pending before
    /// (as on iOS), answered after the write that makes it durable. Its earliest begin is its
    /// own — trigger spacing does not delay it — and its requirements add to the job's keys.
    /// Everything else is the policy of every discretionary launch: budget, battery, thermal,
    /// window, pause, `MaxConcurrent=`.
    mutating func handleRequest(_ id: Identifier, _ asked: RunRequest, requestID: Int64, now: SchedulerTime) {
        guard let job = jobs[id], job.isDiscretionary else {
            // Continued work is submitted; dynamic identifiers of refresh and processing jobs
            // are not requested (one pending request per registered job).
            log("\(id): request (request \(requestID)) refused: not a registered refresh or processing job")
            replies.append(.reply(requestID: requestID, .refused(.notPermitted)))
            return
        }
        if job.restricted || disabled.contains(id) {
            // No wait cures these: say so now rather than keep a request that never runs.
            let why = SubmitRefusal.cannotStartNow(job.restricted ? .restricted : .denied)
            note(id, .refused(requestID: requestID, why), now: now)
            log("\(id): request (request \(requestID)) refused: \(why)")
            replies.append(.reply(requestID: requestID, .refused(why)))
            return
        }
        var request = asked
        // An earliest begin in the past means "as soon as policy allows".
        if request.earliestBegin < now { request.earliestBegin = now }
        let replaced = job.request.requested != nil
        jobs[id]?.request.requested = request
        pendingRequests[id] = request
        dirty = true
        note(id, .requested(request, replaced: replaced), now: now)
        let needs = request.requirements.isEmpty ? "" : "; requires \(request.requirements.description)"
        log("\(id): request (request \(requestID)) pending\(replaced ? ", replacing the earlier one" : "")\(needs)")
        // Due now but held by a per-job blocker (running): say so, as a trigger does.
        if request.earliestBegin <= now { held(id, now: now) }
        // Its requirements may hold it where the job's keys did not (or no longer do).
        reschedule(id, now: now)
        replies.append(.reply(requestID: requestID, .requested(replaced: replaced)))
    }

    /// What `cancel-request ID` would withdraw now, without withdrawing it: the shell words
    /// its answer from it ("withdrew 1 request", "nothing was pending").
    public func withdrawable(_ id: Identifier, exactly: Bool = false) -> WithdrawnWork {
        var work = WithdrawnWork()
        if let job = jobs[id], job.isDiscretionary {
            work.requests = job.request.isEmpty ? 0 : 1
            return work
        }
        let jobID = resolveJob(id)
        let match = SubmissionMatch(id: id, exactly: exactly)
        work.submissions = queues[jobID]?.all.filter { match.covers($0.submission.identifier, job: jobID) }.count ?? 0
        work.submissions += orphanSubmissions.filter { match.covers($0.identifier, job: $0.jobIdentifier) }.count
        return work
    }

    /// Every identifier with something `cancel-request` can withdraw, sorted: for
    /// `cancel-request --all`, which the shell narrows to what the caller may change.
    public var identifiersWithPendingRequests: [Identifier] {
        var ids = Set(jobs.compactMap { $0.value.isDiscretionary && !$0.value.request.isEmpty ? $0.key : nil })
        for queue in queues.values { ids.formUnion(queue.all.map(\.submission.identifier)) }
        ids.formUnion(orphanSubmissions.map(\.identifier))
        return ids.sorted()
    }

    /// A registered refresh or processing job's pending request as the database kept it; its
    /// timeline says so (the timeline itself starts with the agent).
    mutating func restoredRequest(_ id: Identifier, now: SchedulerTime) -> PendingRequest {
        let request = PendingRequest(triggeredAt: pendingTriggers.contains(id) ? now : nil,
                                     retryAt: pendingRetries[id],
                                     chainedAt: pendingChained.contains(id) ? now : nil,
                                     requested: pendingRequests[id])
        if !request.isEmpty { note(id, .kept(.request(request.parts)), now: now) }
        return request
    }
}
