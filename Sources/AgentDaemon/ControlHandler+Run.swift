// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// `run ID` (the administrator's "run it now"), what `trigger` answers, and `pending ID`
/// (DESIGN §8): each says what happens and when, and an unknown identifier is an error with the
/// likely job.
extension ControlHandler {
    /// A run now, reason `manual`, policy bypassed, decided by the scheduler like every launch.
    func runNow(_ target: String) -> ControlResponse {
        switch registeredJob(target) {
        case .failure(let error):
            return .failure(error)
        case .success(let job):
            let id = job.identifier
            guard job.kind != .continued else {
                return .failure(.badRequest, "\(id) is a continued job: a person starts it with agentctl submit \(id) (runs of continued jobs are submissions, with a title and a queue)")
            }
            switch launchNow(job, reason: .manual) {
            case .failure(let error): return .failure(error)
            case .success(let run):
                if let ended = endedAtOnce(run) {
                    return .success(.done(message: "run \(run) of \(id) \(ended)", runID: run.description))
                }
                return .success(.done(message: "started run \(run) of \(id) (manual: policy bypassed; agentctl logs \(run) -f follows its output)",
                                              runID: run.description))
            }
        }
    }

    /// `ended at once: skipped(ConditionPathExists=/x)` for a run launched just now that is
    /// already over (nothing was spawned, or the spawn failed); nil for one that runs.
    func endedAtOnce(_ run: RunID) -> String? {
        guard runs.live[run] == nil, let last = runs.lastEnded, last.run == run else { return nil }
        return "ended at once: \(last.stopReason)"
    }

    /// After a trigger: the run it started, or when the launch will be at the earliest and what
    /// keeps it from being sooner.
    func triggerAnswer(_ job: JobDefinition, runsBefore: Set<RunID>) -> ControlResponse {
        let id = job.identifier
        if let run = runs.runs(of: id).first(where: { !runsBefore.contains($0.state.id) }) {
            return .success(.done(message: "triggered \(id): started run \(run.state.id)", runID: run.state.id.description))
        }
        let now = scheduling.now
        let waiting = pendingSummaries(filter: id.rawValue)
        guard let reason = scheduling.scheduler.waitReason(for: id, now: now) else {
            return .success(.done(message: "triggered \(id): it starts as soon as the agent gets to it", pending: waiting))
        }
        let when = Self.when(reason, at: reason.time?.seconds ?? waiting.first?.earliestBegin, now: now.seconds,
                             spacing: catalogue.registry.settings.triggerSpacing, id: id)
        return .success(.done(message: "triggered \(id): " + when, pending: waiting))
    }

    /// `runs at 08:45 (in 15 min) at the earliest: …` with the reason in words, or what it
    /// waits for when that has no time of its own.
    static func when(_ reason: WaitReason, at instant: Double?, now: Double, spacing: Duration, id: Identifier) -> String {
        let runNow = " (agentctl run \(id) runs it now)"
        let spacingText = span(spacing.components.seconds)
        guard let time = instant else {
            switch reason {
            case .running:
                return "its run is live: the trigger is served by its next launch once that run ends, at most one triggered launch per \(spacingText) (TriggerSpacing=)"
            case .paused:
                return "the agent is paused: it runs after agentctl resume\(runNow)"
            case .denied:
                return "it is disabled: it runs after agentctl enable \(id)"
            case .restricted:
                return "Deny= in agentd.conf forbids it: it does not run"
            default:
                return "it runs once nothing holds it; waiting for \(reason)\(runNow)"
            }
        }
        let at = "it runs at \(LocalClockText.text(time, now: now))"
            + (time > now ? " (in \(span(Int64((time - now).rounded(.up)))))" : "") + " at the earliest"
        switch reason {
        case .running:
            return at + " (once its live run has ended): TriggerSpacing= (\(spacingText)) counts from the job's last launch"
        case .triggerSpacing:
            let last = time - Double(spacing.components.seconds)
            return at + ": TriggerSpacing= (\(spacingText)) counts from the job's last launch, at \(LocalClockText.text(last, now: now))\(runNow)"
        case .interval:
            return at + ": not before its interval since the last run\(runNow)"
        case .afterBoot:
            return at + ": its AfterBoot= span since the machine booted\(runNow)"
        case .schedule:
            return at + ": its next Schedule= slot\(runNow)"
        case .window:
            return at + ": when its Window= opens\(runNow)"
        case .budget(let budget):
            return at + ": the daily budget is spent (\(budget.used)/\(budget.limit)) until it refills\(runNow)"
        case .retry:
            return at + ": retry backoff after a failure\(runNow)"
        case .catchUp:
            return at + ": work overdue after downtime or a suspend is spread over CatchUpSpread=, the most overdue first\(runNow)"
        case .requested:
            return at + ": the earliest begin of its pending request\(runNow)"
        // Reasons without a time of their own: the time is the job's, the reason holds it past it.
        case .paused:
            return at + ", once the agent is resumed (agentctl resume)\(runNow)"
        case .denied:
            return at + ", once it is enabled again (agentctl enable \(id))"
        case .restricted:
            return "Deny= in agentd.conf forbids it: it does not run"
        case .maxConcurrent:
            return at + ", once fewer than MaxConcurrent= runs are live\(runNow)"
        case .condition(let hold):
            return at + ", once nothing holds it: waiting for \(hold)\(runNow)"
        case .notDue, .agentStopping:
            return at + ": \(reason)\(runNow)"
        }
    }

    /// `15 min`, `2 h 5 min`, `45 s`.
    static func span(_ seconds: Int64) -> String {
        if seconds < 60 { return "\(seconds) s" }
        let minutes = (seconds + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        return "\(minutes / 60) h" + (minutes % 60 == 0 ? "" : " \(minutes % 60) min")
    }

    /// `pending [ID]`: every waiting entry (or a page of them), or one identifier's; an
    /// identifier the agent does not know is an error, not an empty list.
    func pending(_ target: String?, page: PageRequest? = nil, maxBytes: Int = AnswerPaging.maxBytes) -> ControlResponse {
        guard let target else {
            guard let page else { return .success(.pending(pendingSummaries())) }
            let driver = scheduling
            let now = driver.now
            // Only the page's entries are made into summaries.
            let (waiting, next) = AnswerPaging.page(
                driver.scheduler.waiting(now: now).lazy.map { Self.summary(of: $0, now: now) }, page, maxBytes: maxBytes,
                size: AnswerPaging.estimatedBytes(of:))
            return .success(.pending(waiting, nextOffset: next))
        }
        guard let id = Identifier(rawValue: target) else {
            return .failure(.badRequest, Self.notAnIdentifier(target))
        }
        let waiting = pendingSummaries(filter: target)
        if waiting.isEmpty, !isKnown(id) { return .failure(.notFound, noJob(id)) }
        return .success(.pending(waiting))
    }

    /// The not-found answer for an identifier that names no job, or nil when it names one (or
    /// is no identifier: the caller says why).
    func unknownJob(_ target: String) -> ControlResponse? {
        // `r000001` also spells an identifier: a run id that is no live run is a run that ended.
        guard RunID(parsing: target) == nil, let id = Identifier(rawValue: target), !isKnown(id) else { return nil }
        return .failure(.notFound, noJob(id))
    }
}
