// SPDX-License-Identifier: Apache-2.0
/// Runs starting and ending: history, retry backoff and chaining.
extension Scheduler {
    mutating func runStarted(_ id: Identifier, _ run: RunID, reason: RunReason, now: SchedulerTime) {
        let jobID = resolveJob(id)
        let launchedByUs = live.started(id, run, job: jobID, reason: reason)
        note(id, job: jobID, .started(run, reason), now: now)
        if jobs[jobID]?.definition.kind == .processing, !conditions.power.externalPower {
            lowered.insert(run)
            output.append(.setCPUWeight(run, lowered: true))
        }
        // Launched just before logind said the machine is going to sleep: frozen or expired
        // like the runs that were already live.
        if conditions.sleeping { applyRunPolicy(now: now) }
        guard !launchedByUs else { return }
        // A start under a run id no launch carried: the agent sends none (every launch is
        // decided here), but such a run is still a run of the identifier — interval and trigger
        // spacing count from it, and it holds a slot and the identifier until it ends. It does
        // not consume pending requests.
        if jobs[jobID] != nil {
            lastRunStart[jobID] = now
            dirty = true
            reschedule(jobID, now: now)
        }
    }

    /// A run ended: frees its slot and identifier, updates history, schedules a retry after a
    /// failure (`Retry=`), a chained run after a success (`OnSuccess=`), and one after a
    /// failure, crash, expiry or spawn failure (`OnFailure=`: someone hears of it).
    mutating func runEnded(_ id: Identifier, _ run: RunID, _ stop: StopReason, result: String? = nil,
                           now: SchedulerTime) {
        let counted = live.ended(run)
        frozen[run] = nil
        expiring.remove(run)
        lowered.remove(run)
        let jobID = counted?.job ?? resolveJob(id)
        note(id, job: jobID, .ended(run, stop), now: now)
        switch stop {
        case .success:
            lastSuccess[jobID] = now
            consecutiveFailures[jobID] = nil
            dirty = true
            if jobs[jobID]?.request.retryAt != nil {
                jobs[jobID]?.request.retryAt = nil
            }
            pendingRetries[jobID] = nil
            chain(from: jobID, input: ChainedInput(previousRunID: run, previousResult: result), now: now)
        case .failure, .crashed, .spawnFailed:
            let failures = (consecutiveFailures[jobID] ?? 0) + 1
            consecutiveFailures[jobID] = failures
            dirty = true
            if let job = jobs[jobID], job.isDiscretionary, let policy = job.definition.retry {
                let delay = policy.delay(afterFailures: failures)
                let at = now + delay
                jobs[jobID]?.request.retryAt = at
                pendingRetries[jobID] = at
                note(jobID, .retryScheduled(at: at, failures: failures), now: now)
                log("\(jobID): \(stop); retry in \(TimeSpan.format(delay)) "
                    + "(failure \(failures), Retry=\(policy))")
            }
            chainOnFailure(from: jobID, run, stop, now: now)
        case .expired:
            chainOnFailure(from: jobID, run, stop, now: now)
        case .cancelled, .agentRestart, .skipped:
            // Not failures: no retry; a skipped run (a false Condition…=) chains nothing either,
            // and the interval or schedule moves on from its start.
            break
        }
        if jobs[jobID] != nil { reschedule(jobID, now: now) }
    }

    /// `OnFailure=` after a stop that ``StopReason/chainsOnFailure``: the chained run is told
    /// which run ended how (`AGENTD_PREVIOUS_*`).
    mutating func chainOnFailure(from jobID: Identifier, _ run: RunID, _ stop: StopReason, now: SchedulerTime) {
        guard stop.chainsOnFailure, let next = jobs[jobID]?.definition.extra.onFailure else { return }
        chain(from: jobID, to: next, key: .onFailure,
              input: ChainedInput(previousRunID: run, previousResult: nil, previousStopReason: stop), now: now)
    }

    /// `OnSuccess=`: a pending `chained` request for the named job, subject to every blocker
    /// but the interval. The chained run gets `input` (the latest run's, when two merge).
    mutating func chain(from jobID: Identifier, input: ChainedInput? = nil, now: SchedulerTime) {
        guard let next = jobs[jobID]?.definition.onSuccess else { return }
        chain(from: jobID, to: next, key: .onSuccess, input: input, now: now)
    }

    /// A pending `chained` request for `next`, named by `key` in logs and the timeline.
    mutating func chain(from jobID: Identifier, to next: Identifier, key: ChainKey, input: ChainedInput?,
                        now: SchedulerTime) {
        guard let target = jobs[next] else {
            log("\(jobID): \(key.rawValue)=\(next) is not a registered job; nothing chained")
            return
        }
        guard target.isDiscretionary else {
            log("\(jobID): \(key.rawValue)=\(next) is a continued job, which starts only through "
                + "agentctl submit; nothing chained")
            return
        }
        if target.request.chainedAt == nil {
            // At most one chained launch per identifier per TriggerSpacing: a cycle that got
            // past the load-time check (A → B → A) runs at that pace, not back to back.
            let spacing = settings.triggerSpacing
            var at = now
            if let last = lastChainRequest[next] {
                at = max(now, TriggerSpacing.spacingEnd(lastLaunch: last, spacing: spacing))
            }
            if at > now, let last = lastChainRequest[next] {
                log("\(jobID): \(key.rawValue)=\(next) was chained less than TriggerSpacing="
                    + "\(TimeSpan.format(spacing)) ago; it waits \(TimeSpan.format(at.duration(since: now)))")
                chainSpacedAfter[next] = last
            } else {
                chainSpacedAfter[next] = nil
            }
            lastChainRequest[next] = at
            jobs[next]?.request.chainedAt = at
            pendingChained.insert(next)
            dirty = true
        }
        jobs[next]?.request.chainedInput = input
        note(next, .chainRequested(by: jobID, afterFailure: key == .onFailure), now: now)
        held(next, now: now)
        reschedule(next, now: now)
    }

    /// A `deferred` entry when a new request meets a per-job blocker (restricted, denied,
    /// running) that keeps the job out of the heaps.
    mutating func held(_ id: Identifier, now: SchedulerTime) {
        guard let job = jobs[id] else { return }
        if job.restricted {
            deferred(id, .restricted, now: now)
        } else if disabled.contains(id) {
            deferred(id, .denied, now: now)
        } else if live.isRunning(id) {
            deferred(id, .running, now: now)
        }
    }
}

/// The key that chains one job to another.
enum ChainKey: String {
    case onSuccess = "OnSuccess"
    case onFailure = "OnFailure"
}
