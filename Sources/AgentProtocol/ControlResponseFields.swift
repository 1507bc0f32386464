// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// A response as it travels: `ok`, `error` and every answer shape's payload as optional fields,
/// so the JSON line is the one agentd has always sent (docs/json.md). Only coding uses it:
/// agentd flattens a ``ControlResponse`` into it to send; a client decodes a line into it and
/// types it with ``response(to:)`` for the verb it sent — a line says which shape it holds only
/// through that verb, and on an event stream it is read before anyone knows which request it
/// answers.
public struct ControlResponseFields: Codable, Sendable {
    var ok: Bool
    var error: ControlError?
    var status: StatusReport?
    var jobs: [JobSummary]?
    var runs: [RunRecord]?
    var nextCursor: RunCursor?
    /// `list`, `pending`: where the next page starts (``PageRequest``).
    var nextOffset: Int?
    var message: String?
    var runID: String?
    var pending: [PendingSummary]?
    var timeline: [TimelineRecord]?
    var gpus: [GPUSummary]?
    var inputs: MachineInputs?
    var metrics: MetricsSnapshot?
    var sequence: UInt64?
    var requestID: Int64?
    /// `explain`: the job's kind, and the jobs whose `OnSuccess=` start it (absent when none).
    var kind: JobKind?
    var chainedBy: [String]?

    init(ok: Bool) {
        self.ok = ok
    }

    /// The line agentd sends for `response`: only the fields its shape has.
    public init(_ response: ControlResponse) {
        switch response {
        case .failure(let refusal):
            self.init(ok: false)
            error = refusal
        case .success(let answer):
            self.init(ok: true)
            switch answer {
            case .status(let report):
                status = report
            case .jobs(let summaries, let next):
                jobs = summaries
                nextOffset = next
            case .runs(let page, let next):
                runs = page
                nextCursor = next
            case .logs(let page, let next, let last):
                runs = page
                nextCursor = next
                sequence = last
            case .pending(let waiting, let next):
                pending = waiting
                nextOffset = next
            case .explanation(let records, let waiting, let jobKind, let chaining):
                timeline = records
                pending = waiting
                kind = jobKind
                chainedBy = chaining.isEmpty ? nil : chaining
            case .resources(let found, let machine):
                gpus = found
                inputs = machine
            case .metrics(let snapshot, let next):
                metrics = snapshot
                nextOffset = next
            case .subscribed(let last):
                message = "subscribed"
                sequence = last
            case .done(let text, let run, let request, let waiting):
                message = text
                runID = run
                requestID = request
                pending = waiting
            }
        }
    }

    /// The agent's answer to a `command` request: its refusal, or the shape the verb is
    /// answered with — or ``ControlAnswerMismatch`` naming the verb and what the line lacks
    /// (an agent of another version, or not agentd).
    public func response(to command: ControlCommand) throws(ControlAnswerMismatch) -> ControlResponse {
        if let error { return .failure(error) }
        guard ok else { throw ControlAnswerMismatch("the agent refused \(command.rawValue) without saying why") }
        func needed<Value>(_ value: Value?, _ field: String) throws(ControlAnswerMismatch) -> Value {
            guard let value else { throw .missing(field, answering: command) }
            return value
        }
        switch command {
        case .status:
            return .success(.status(try needed(status, "status")))
        case .list:
            return .success(.jobs(try needed(jobs, "jobs"), nextOffset: nextOffset))
        case .history:
            return .success(.runs(try needed(runs, "runs"), nextCursor: nextCursor))
        case .logs:
            return .success(.logs(try needed(runs, "runs"), nextCursor: nextCursor, sequence: try needed(sequence, "sequence")))
        case .pending:
            return .success(.pending(try needed(pending, "pending"), nextOffset: nextOffset))
        case .explain:
            return .success(.explanation(timeline: try needed(timeline, "timeline"), pending: try needed(pending, "pending"),
                                         kind: kind, chainedBy: chainedBy ?? []))
        case .resources:
            return .success(.resources(gpus: try needed(gpus, "gpus"), inputs: inputs))
        case .metrics:
            return .success(.metrics(try needed(metrics, "metrics"), nextOffset: nextOffset))
        case .subscribe:
            return .success(.subscribed(sequence: try needed(sequence, "sequence")))
        case .cancel, .simulateLaunch, .simulateExpire, .trigger, .submit, .enable, .disable, .pause, .resume,
             .runIfStale, .lowpower, .request, .cancelRequest, .run:
            return .success(.done(message: try needed(message, "message"), runID: runID, requestID: requestID,
                                  pending: pending))
        }
    }
}
