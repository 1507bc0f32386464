// SPDX-License-Identifier: Apache-2.0
@testable import AgentProtocol
import Testing

/// DESIGN §9: a reader who may not see a job's details gets identifiers, kinds, states, times
/// and stop reasons of it, never output lines, STATUS=/RESULT= text, titles or arguments.
@Suite struct ReadRedactionTests {
    private let hidden = ReadRedaction { $0 == "com.example.open" }

    private func record(_ id: String) -> RunRecord {
        var record = RunRecord(runID: "r000001", identifier: id, kind: .refresh, reason: "scheduled", startedAt: 1,
                               endedAt: 2, stopReason: "failure(exit 3)", exitStatus: 3, signal: nil, progress: 0.5,
                               title: "Exporting", logTail: ["secret line"],
                               notes: RunNotes(statusText: "server said 503", result: "/home/a/x.zip"))
        record.checkpointLeft = "batch-17"
        return record
    }

    @Test func historyKeepsWhatTheFileWouldTellAndDropsWhatTheRunSaid() throws {
        let page = try hidden.apply(.runs([record("com.example.secret"), record("com.example.open")], nextCursor: nil)).runs().page
        let secret = page[0]
        #expect(secret.logTail == [] && secret.statusText == nil && secret.result == nil && secret.title == nil)
        #expect(secret.checkpointLeft == nil)
        #expect(secret.stopReason == "failure(exit 3)" && secret.exitStatus == 3 && secret.endedAt == 2)
        #expect(page[1] == record("com.example.open"))
    }

    /// That a job's `OnSuccess=` starts another is a line of its file: shown only to a reader
    /// who may see that job's details.
    @Test func explainNamesOnlyTheChainsTheReaderMaySee() throws {
        let answer = ControlAnswer.explanation(timeline: [], pending: [], kind: .refresh,
                                               chainedBy: ["com.example.open", "com.example.secret"])
        let seen = try hidden.apply(answer).explanation()
        #expect(seen.kind == .refresh && seen.chainedBy == ["com.example.open"])
    }

    @Test func statusListAndPendingLoseTitlesStatusTextAndArguments() throws {
        var status = StatusReport(version: "1", pid: 1, startedAt: 0, uptimeSeconds: 0, configDirectory: "/etc/agentd",
                                  stateDirectory: "/var/lib/agentd", socketPath: "/run/agentd/agentd.sock",
                                  manifestCount: 1, jobCount: 1, diagnostics: [], stateError: nil,
                                  running: [RunSummary(runID: "r000002", identifier: "com.example.secret", kind: .continued,
                                                       reason: "submitted", pid: 9, startedAt: 0, deadline: nil,
                                                       title: "Payroll 2026", subtitle: "3 of 9", statusText: "uploading")],
                                  pending: [PendingSummary(identifier: "com.example.secret", kind: .continued,
                                                           waitingFor: "queued", title: "Payroll 2027")])
        status.pendingCount = 1
        let jobs = [JobSummary(identifier: "com.example.secret", kind: .refresh, source: "jobs.d/s.job",
                               state: "registered", exec: ["/usr/bin/backup", "--password=hunter2"], intervalSeconds: 60)]
        let seen = try hidden.apply(.status(status)).status()
        let run = seen.running.first
        #expect(run?.title == nil && run?.subtitle == nil && run?.statusText == nil && run?.pid == 9)
        #expect(seen.pending.first?.title == nil && seen.pending.first?.waitingFor == "queued")
        let listed = try hidden.apply(.jobs(jobs)).jobs()
        #expect(listed.first?.exec == [] && listed.first?.intervalSeconds == 60)
        let waiting = try hidden.apply(.pending(status.pending)).pending()
        #expect(waiting.first?.title == nil && waiting.first?.waitingFor == "queued")
    }

    @Test func eventsOfHiddenJobsLoseTheirTextAndTextOnlyEventsAreNotSent() {
        var started = AgentEvent(sequence: 1, time: 0, type: .runStarted, identifier: "com.example.secret", runID: "r000001")
        started.title = "Payroll"
        let kept = hidden.apply(started)
        #expect(kept?.title == nil && kept?.runID == "r000001")
        var status = AgentEvent(sequence: 2, time: 0, type: .runStatus, identifier: "com.example.secret")
        status.status = "uploading"
        #expect(hidden.apply(status) == nil)
        var ended = AgentEvent(sequence: 3, time: 0, type: .runEnded, identifier: "com.example.secret", runID: "r000001")
        ended.status = "server said 503"
        ended.result = "/home/a/payroll.pdf"
        ended.stopReason = "failure(exit 3)"
        let endedSeen = hidden.apply(ended)
        #expect(endedSeen?.status == nil && endedSeen?.result == nil && endedSeen?.stopReason == "failure(exit 3)")
        var open = AgentEvent(sequence: 3, time: 0, type: .runStatus, identifier: "com.example.open")
        open.status = "fine"
        #expect(hidden.apply(open) == open)
    }

    /// A field added to an answer or event type needs a rule: output lines of a new verb must be
    /// said to be a job's details, or this fails.
    @Test func everyFieldOfTheAnswerAndEventTypesHasARule() {
        let status = StatusReport(version: "", pid: 0, startedAt: 0, uptimeSeconds: 0, configDirectory: "",
                                  stateDirectory: "", socketPath: "", manifestCount: 0, jobCount: 0,
                                  diagnostics: [], stateError: nil, running: [], pending: [])
        let samples: [(String, Any)] = [
            ("ControlResponseFields", ControlResponseFields(.success(.done(message: "")))),
            ("StatusReport", status),
            ("RunSummary", RunSummary(runID: "", identifier: "", kind: .refresh, reason: "", pid: 0, startedAt: 0, deadline: nil)),
            ("PendingSummary", PendingSummary(identifier: "", kind: .refresh, waitingFor: "")),
            ("JobSummary", JobSummary(identifier: "", kind: .refresh, source: "", state: "", exec: [], intervalSeconds: nil)),
            ("RunRecord", record("x")),
            ("AgentEvent", AgentEvent(sequence: 0, time: 0, type: .runStarted)),
        ]
        for (type, sample) in samples {
            let fields = Mirror(reflecting: sample).children.compactMap(\.label)
            let rules = ReadRedaction.fieldRules[type] ?? [:]
            #expect(Set(fields) == Set(rules.keys), "\(type): classify \(Set(fields).subtracting(rules.keys).sorted()) in ReadRedaction.fieldRules (and redact them if they are a job's details); drop \(Set(rules.keys).subtracting(fields).sorted())")
        }
    }
}
