// SPDX-License-Identifier: Apache-2.0
/// What a reader who may not see a job's details gets of it (DESIGN §9): every read answer and
/// every event passes through here before it reaches a peer that is not root, not in group
/// `agentd` and not named by the job's manifest, so a new read verb is covered by the fields it
/// reuses. Kept: identifiers, kinds, states, reasons, times, progress, stop reasons — what the
/// job file would tell. Removed, for jobs the reader may not see (`seesDetails` false): output
/// lines (`logTail`), `STATUS=`/`RESULT=` text, titles, subtitles, checkpoints, and `Exec=`
/// arguments.
///
/// Every field of the answer and event types is classified in `fieldRules`; a test fails when a
/// field is added without a rule (a new verb's output lines must say they are per-job details).
public struct ReadRedaction {
    /// Whether the reader sees the details of identifier `id` (a dynamic one too).
    public let seesDetails: (String) -> Bool

    public init(seesDetails: @escaping (String) -> Bool) {
        self.seesDetails = seesDetails
    }

    /// The answer as this reader may see it.
    public func apply(_ answer: ControlAnswer) -> ControlAnswer {
        switch answer {
        case .status(var status):
            status.running = status.running.map(redacted)
            status.pending = status.pending.map(redacted)
            return .status(status)
        case .jobs(let jobs, let next):
            return .jobs(jobs.map(redacted), nextOffset: next)
        case .runs(let page, let next):
            return .runs(page.map(redacted), nextCursor: next)
        case .logs(let page, let next, let sequence):
            return .logs(page.map(redacted), nextCursor: next, sequence: sequence)
        case .pending(let waiting, let next):
            return .pending(waiting.map(redacted), nextOffset: next)
        case .explanation(let timeline, let waiting, let kind, let chainedBy):
            // That a job starts this one is a line of that job's file.
            return .explanation(timeline: timeline, pending: waiting.map(redacted), kind: kind,
                                chainedBy: chainedBy.filter(seesDetails))
        case .done(let message, let runID, let requestID, let waiting):
            return .done(message: message, runID: runID, requestID: requestID, pending: waiting?.map(redacted))
        case .resources, .metrics, .subscribed:
            return answer
        }
    }

    /// The event as this reader may see it; nil when it carries nothing but a detail (a
    /// `run-title`, `run-subtitle`, `run-status` or `run-output` of a job the reader may not see).
    public func apply(_ event: AgentEvent) -> AgentEvent? {
        guard let id = event.identifier, !seesDetails(id) else { return event }
        switch event.eventKind {
        case .runTitle?, .runSubtitle?, .runStatus?, .runOutput?: return nil
        default: break
        }
        var copy = event
        copy.title = nil
        copy.subtitle = nil
        copy.status = nil
        copy.result = nil
        copy.lines = nil
        return copy
    }

    func redacted(_ run: RunSummary) -> RunSummary {
        guard !seesDetails(run.identifier) else { return run }
        var copy = run
        copy.title = nil
        copy.subtitle = nil
        copy.statusText = nil
        return copy
    }

    func redacted(_ pending: PendingSummary) -> PendingSummary {
        guard !seesDetails(pending.identifier) else { return pending }
        var copy = pending
        copy.title = nil
        copy.subtitle = nil
        return copy
    }

    func redacted(_ job: JobSummary) -> JobSummary {
        guard !seesDetails(job.identifier) else { return job }
        var copy = job
        copy.exec = []
        return copy
    }

    func redacted(_ run: RunRecord) -> RunRecord {
        guard !seesDetails(run.identifier) else { return run }
        var copy = run
        copy.title = nil
        copy.logTail = []
        copy.statusText = nil
        copy.result = nil
        copy.checkpointGiven = nil
        copy.checkpointLeft = nil
        copy.detailsHidden = true
        return copy
    }

    /// How each field of the answer and event types is treated for a reader who may not see
    /// a job's details: `.kept` (what the job file would tell, or no job's at all), `.removed`
    /// (a detail, cleared above), `.perJob` (a list whose entries are redacted one by one).
    public enum FieldRule: Sendable, Equatable { case kept, removed, perJob }

    public static let fieldRules: [String: [String: FieldRule]] = [
        "ControlResponseFields": [
            "ok": .kept, "error": .kept, "status": .perJob, "jobs": .perJob, "runs": .perJob,
            "nextCursor": .kept, "nextOffset": .kept, "message": .kept, "runID": .kept, "pending": .perJob,
            "timeline": .kept, "gpus": .kept, "inputs": .kept, "metrics": .kept, "sequence": .kept,
            "requestID": .kept, "kind": .kept, "chainedBy": .perJob,
        ],
        "StatusReport": [
            "version": .kept, "pid": .kept, "_startedAt": .kept, "uptimeSeconds": .kept,
            "configDirectory": .kept, "stateDirectory": .kept, "socketPath": .kept, "manifestCount": .kept,
            "jobCount": .kept, "diagnostics": .kept, "stateError": .kept, "running": .perJob,
            "pending": .perJob, "pendingCount": .kept, "paused": .kept, "budgetLeft": .kept,
            "dailyBudget": .kept, "budgets": .kept, "inputs": .kept, "configWatch": .kept,
            "runLimits": .kept, "metricsFileProblem": .kept,
        ],
        "RunSummary": [
            "runID": .kept, "identifier": .kept, "kind": .kept, "reason": .kept, "pid": .kept,
            "_startedAt": .kept, "_deadline": .kept, "progress": .kept, "completedUnitCount": .kept,
            "totalUnitCount": .kept, "title": .removed, "subtitle": .removed, "statusText": .removed,
            "stopping": .kept, "paused": .kept,
        ],
        "PendingSummary": [
            "identifier": .kept, "kind": .kept, "waitingFor": .kept, "_earliestBegin": .kept,
            "title": .removed, "subtitle": .removed, "request": .kept, "reason": .kept, "_until": .kept,
        ],
        "JobSummary": [
            "identifier": .kept, "_kind": .kept, "source": .kept, "state": .kept, "exec": .removed,
            "intervalSeconds": .kept, "waiting": .kept, "waitingReason": .kept, "_waitingUntil": .kept,
        ],
        "RunRecord": [
            "runID": .kept, "identifier": .kept, "kind": .kept, "reason": .kept, "_startedAt": .kept,
            "_endedAt": .kept, "stopReason": .kept, "stopKind": .kept, "expiredBy": .kept,
            "spawnError": .kept, "exitStatus": .kept, "signal": .kept, "progress": .kept,
            "completedUnitCount": .kept, "totalUnitCount": .kept, "title": .removed, "logTail": .removed,
            "statusText": .removed, "result": .removed, "truncatedLineCount": .kept,
            "invalidDirectiveCount": .kept, "checkpointGiven": .removed, "checkpointLeft": .removed,
            "detailsHidden": .kept,
        ],
        "AgentEvent": [
            "sequence": .kept, "_time": .kept, "type": .kept, "identifier": .kept, "job": .kept, "runID": .kept,
            "kind": .kept, "reason": .kept, "stopReason": .kept, "requestID": .kept, "progress": .kept,
            "completedUnitCount": .kept, "totalUnitCount": .kept, "title": .removed, "subtitle": .removed,
            "status": .removed, "result": .removed, "position": .kept, "request": .kept, "message": .kept, "inputs": .kept,
            "lines": .removed, "droppedLineCount": .kept,
        ],
    ]
}
