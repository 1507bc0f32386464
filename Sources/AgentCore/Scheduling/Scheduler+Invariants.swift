// SPDX-License-Identifier: Apache-2.0
/// The scheduler's structural invariants: what must hold between any two events, whatever
/// came before. The golden scripts and the seeded random event sequences check them after
/// every event; a violation is a scheduler bug, never a test's.
///
/// O(n) in the number of jobs and runs: a test's tool, never called on the daemon's path.
extension Scheduler {
    /// Every broken invariant, one sentence each naming the identifier or run; empty when all
    /// hold. With `now`, the checks that depend on the time run too (due work that should have
    /// been looked at, ready work that is not due).
    public func checkInvariants(now: SchedulerTime? = nil) -> [String] {
        var problems: [String] = []
        checkHeaps(now: now, into: &problems)
        checkJobPlacement(into: &problems)
        checkRequestMirrors(into: &problems)
        checkContinuedQueues(into: &problems)
        checkRuns(into: &problems)
        checkCaches(into: &problems)
        return problems
    }

    /// The four discretionary heaps are disjoint, hold only registered discretionary jobs,
    /// and agree with the launch policy: `ready` holds no job a condition holds,
    /// `conditionHeld` only jobs a condition holds.
    private func checkHeaps(now: SchedulerTime?, into problems: inout [String]) {
        let heaps: [(String, DeadlineQueue<Identifier, TimedKey>)] = [
            ("due", due), ("ready", ready), ("conditionHeld", conditionHeld), ("budgetHeld", budgetHeld.heap),
        ]
        var seen: [Identifier: String] = [:]
        for (name, heap) in heaps {
            for (id, key) in heap.entries {
                if let other = seen[id] { problems.append("\(id) is in both the \(other) and the \(name) heap") }
                seen[id] = name
                if key.identifier != id { problems.append("\(id) sits in the \(name) heap under \(key.identifier)'s key") }
                guard let job = jobs[id] else {
                    problems.append("\(id) is in the \(name) heap but is not a registered job")
                    continue
                }
                if !job.isDiscretionary { problems.append("continued job \(id) is in the \(name) heap") }
                let hold = launchHold(job)
                if name == "ready" || name == "budgetHeld", let hold {
                    problems.append("\(id) is in the \(name) heap though \(hold) holds it")
                }
                if name == "conditionHeld", hold == nil {
                    problems.append("\(id) is condition-held though no condition holds it")
                }
                if let now, name != "due", let candidate = candidate(job), candidate.eligibleAt > now {
                    problems.append("\(id) is in the \(name) heap but not eligible until \(candidate.eligibleAt)")
                }
            }
        }
        if let now, holdingSince == nil, let top = due.min, top.priority.time <= now {
            problems.append("\(top.key) was due at \(top.priority.time) but is still in the due heap at \(now)")
        }
    }

    /// A discretionary job sits in exactly one heap when it wants to run and nothing per-job
    /// (restricted, denied, running) keeps it out; otherwise in none. The due heap never
    /// wakes a job later than its candidate.
    private func checkJobPlacement(into problems: inout [String]) {
        for (id, job) in jobs where job.isDiscretionary {
            let inHeap = due.contains(id) || ready.contains(id) || conditionHeld.contains(id)
                || budgetHeld.contains(id)
            let outside = job.restricted || disabled.contains(id) || live.isRunning(id)
            let wanted = candidate(job)
            if outside, inHeap {
                let why = job.restricted ? "restricted" : disabled.contains(id) ? "denied" : "running"
                problems.append("\(id) is \(why) yet sits in a heap")
            }
            if !outside, let wanted, !inHeap {
                problems.append("\(id) wants to run at \(wanted.eligibleAt) (\(wanted.reason.rawValue)) but sits in no heap: it would never launch")
            }
            if wanted == nil, inHeap { problems.append("\(id) wants nothing yet sits in a heap") }
            if let wanted, let time = due.priority(of: id)?.time, time > wanted.eligibleAt {
                problems.append("\(id) waits in the due heap until \(time), after it may launch at \(wanted.eligibleAt)")
            }
        }
    }

    /// The persisted mirrors of pending requests match the jobs' requests; continued jobs
    /// have none.
    private func checkRequestMirrors(into problems: inout [String]) {
        for (id, job) in jobs {
            let request = job.isDiscretionary ? job.request : PendingRequest()
            if pendingTriggers.contains(id) != (request.triggeredAt != nil) {
                problems.append("\(id): pending trigger mirror \(pendingTriggers.contains(id)) disagrees with its request")
            }
            if pendingRetries[id] != request.retryAt {
                problems.append("\(id): pending retry mirror \(String(describing: pendingRetries[id])) disagrees with its request \(String(describing: request.retryAt))")
            }
            if pendingChained.contains(id) != (request.chainedAt != nil) {
                problems.append("\(id): pending chain mirror \(pendingChained.contains(id)) disagrees with its request")
            }
            if pendingRequests[id] != request.requested {
                problems.append("\(id): pending request mirror disagrees with its request")
            }
            if request.chainedInput != nil, request.chainedAt == nil {
                problems.append("\(id): holds a chained input without a chain request")
            }
            if !job.isDiscretionary, !job.request.isEmpty { problems.append("continued job \(id) has a pending request") }
            if !job.isDiscretionary, job.catchUp != nil { problems.append("continued job \(id) has a catch-up slot") }
        }
    }

    /// Queues belong to registered continued jobs, are counted right, and each non-empty one
    /// is either ready to start, held by a condition, or blocked per job (restricted, denied).
    private func checkContinuedQueues(into problems: inout [String]) {
        var total = 0
        for (id, queue) in queues {
            total += queue.count
            guard let job = jobs[id], !job.isDiscretionary else {
                problems.append("\(id) has a submission queue but is not a registered continued job")
                continue
            }
            if queue.isEmpty { problems.append("\(id) keeps an empty submission queue") }
            if queue.all.contains(where: { $0.submission.jobIdentifier != id }) {
                problems.append("\(id)'s queue holds another job's submission")
            }
            let blocked = job.restricted || disabled.contains(id)
            let isReady = continuedReady.contains(id), isHeld = continuedHeld.contains(id)
            if isReady, isHeld { problems.append("\(id) is both ready and condition-held") }
            if blocked, isReady || isHeld { problems.append("\(id) is restricted or denied yet its queue may start") }
            if !blocked, !queue.isEmpty, !isReady, !isHeld {
                problems.append("\(id) has \(queue.count) queued submission(s) that would never start")
            }
            if isReady, let first = queue.first, continuedReady.priority(of: id) != first.sequence {
                problems.append("\(id) is ready under a sequence number that is not its oldest submission's")
            }
            if isReady, let hold = continuedHold(id) { problems.append("\(id)'s queue is ready though \(hold) holds it") }
            if isHeld, continuedHold(id) == nil { problems.append("\(id)'s queue is held though no condition holds it") }
        }
        for (id, _) in continuedReady.entries where queues[id] == nil {
            problems.append("\(id) is ready to start a submission but has no queue")
        }
        for id in continuedHeld where queues[id] == nil {
            problems.append("\(id) is condition-held but has no queue")
        }
        if total != queuedTotal { problems.append("queuedTotal is \(queuedTotal) but the queues hold \(total)") }
        for submission in orphanSubmissions {
            if let job = jobs[submission.jobIdentifier], !job.isDiscretionary {
                problems.append("restored submission \(submission.requestID) is an orphan though \(submission.jobIdentifier) is registered")
            }
        }
    }

    /// One live run per refresh/processing job, and none beside a run of it launched one at a
    /// time (a job changed from continued may still have its continued runs: they count as live,
    /// and no new one starts until they end); frozen, expiring and lowered runs are live.
    private func checkRuns(into problems: inout [String]) {
        for (id, job) in jobs where job.isDiscretionary && live.count(job: id) > 1 {
            let single = live.oneAtATimeCount(job: id)
            if single > 0 {
                problems.append("\(id) has \(live.count(job: id)) live runs, \(single) launched one at a time")
            }
        }
        let started = live.startedRuns
        if started.count > live.total { problems.append("\(started.count) started runs but \(live.total) counted live") }
        for run in frozen.keys where started[run] == nil { problems.append("frozen run \(run) is not live") }
        for run in expiring where started[run] == nil { problems.append("expiring run \(run) is not live") }
        for run in lowered where started[run] == nil { problems.append("lowered run \(run) is not live") }
    }

    /// Cached per-job facts agree with the definitions and settings.
    private func checkCaches(into problems: inout [String]) {
        for (id, job) in jobs {
            if job.restricted != settings.denies(id) { problems.append("\(id): cached restricted \(job.restricted) disagrees with Deny=") }
            if restrictedJobs.contains(id) != job.restricted { problems.append("\(id): restricted set disagrees with the job") }
            if idleJobs.contains(id) != job.definition.requiresIdle { problems.append("\(id): idle set disagrees with RequiresIdle=") }
        }
        for id in restrictedJobs where jobs[id] == nil { problems.append("\(id) is counted restricted but not registered") }
        checkBudgets(into: &problems)
        if holdingSince != nil, firstTickSeen, !catchUpPending {
            problems.append("launches are held with no first tick or catch-up to wait for")
        }
    }

    /// Per-manifest ledgers: none negative, none of a manifest that is gone; a budget-held job
    /// waits on the account it spends, and that account has no launch left.
    private func checkBudgets(into problems: inout [String]) {
        for (name, ledger) in budgets.ledgers.sorted(by: { $0.key < $1.key }) {
            if ledger.spent < 0 { problems.append("budget of \(name): spent is negative (\(ledger.spent))") }
            if !accounts.isEmpty, accounts.limits[name] == nil {
                problems.append("budget of \(name) is kept though no manifest \(name) is in force")
            }
        }
        if budgets.template.spent < 0 { problems.append("budget template spent is negative (\(budgets.template.spent))") }
        for (id, _) in budgetHeld.entries {
            guard let job = jobs[id] else { continue }
            let account = budgetAccount(job)
            if budgetHeld.account(of: id) != account {
                problems.append("\(id) waits on the budget of \(budgetHeld.account(of: id) ?? "-") but spends \(account)'s")
            }
            if holdingSince == nil, hasBudget(account, now: clockNow) {
                problems.append("\(id) waits on the budget of \(account), which has launches left")
            }
        }
    }
}
