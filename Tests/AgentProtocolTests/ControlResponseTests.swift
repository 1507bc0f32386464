// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Testing

/// A response is the typed answer its verb asks for, or the agent's refusal; on the wire it is
/// the JSON line agentd has always sent, and the side that asked types it knowing its verb — a
/// line without what the verb asks for is an error naming the verb and the missing payload.
@Suite struct ControlResponseTests {
    private func line(_ response: ControlResponse) throws -> String {
        String(decoding: try MessageCoding.encodeLine(ControlResponseFields(response)), as: UTF8.self)
    }

    private func decode(_ text: String, answering command: ControlCommand) throws -> ControlResponse {
        try MessageCoding.decode(ControlResponseFields.self, from: Array(text.utf8)).response(to: command)
    }

    /// The lines agentd sent before answers were typed, one or more per answer shape.
    static var lines: [(ControlCommand, ControlResponse, String)] {
        let f = AnswerFixtures.self
        return [
            (.status, .success(.status(f.status)),
             #"{"ok":true,"status":{"configDirectory":"/etc/agentd","diagnostics":[],"jobCount":2,"manifestCount":1,"paused":false,"pending":[{"earliestBegin":"2026-12-01T08:00:00.000Z","identifier":"local.backup","kind":"processing","reason":"network","title":"Nightly","waitingFor":"network"}],"pendingCount":1,"pid":42,"running":[{"identifier":"local.tidy","kind":"refresh","pid":7,"reason":"scheduled","runID":"r000041","startedAt":"2026-12-01T08:00:30.000Z","title":"Tidying"}],"socketPath":"/run/agentd/agentd.sock","startedAt":"2026-12-01T08:00:00.000Z","stateDirectory":"/var/lib/agentd","uptimeSeconds":60,"version":"1.2.3"}}"#),
            (.list, .success(.jobs(f.jobs)),
             #"{"jobs":[{"exec":["/usr/bin/backup","--all"],"identifier":"local.backup","intervalSeconds":3600,"kind":"processing","source":"jobs.d/backup.job","state":"registered"}],"ok":true}"#),
            (.list, .success(.jobs([])),
             #"{"jobs":[],"ok":true}"#),
            (.list, .success(.jobs(f.jobs, nextOffset: 250)),
             #"{"jobs":[{"exec":["/usr/bin/backup","--all"],"identifier":"local.backup","intervalSeconds":3600,"kind":"processing","source":"jobs.d/backup.job","state":"registered"}],"nextOffset":250,"ok":true}"#),
            (.pending, .success(.pending([], nextOffset: 1000)),
             #"{"nextOffset":1000,"ok":true,"pending":[]}"#),
            (.history, .success(.runs(f.runs, nextCursor: RunCursor(runID: RunID(39), startedAt: 1_796_111_000_000))),
             #"{"nextCursor":"r000039@1796111000000","ok":true,"runs":[{"endedAt":"2026-12-01T08:01:00.000Z","exitStatus":0,"identifier":"local.backup","kind":"processing","logTail":["done"],"progress":1,"reason":"interval","runID":"r000040","startedAt":"2026-12-01T08:00:00.000Z","stopKind":"success","stopReason":"success","title":"Backing up"}]}"#),
            (.history, .success(.runs([], nextCursor: nil)),
             #"{"ok":true,"runs":[]}"#),
            (.logs, .success(.logs(f.runs, nextCursor: RunCursor(runID: RunID(39), startedAt: nil), sequence: 17)),
             #"{"nextCursor":"r000039","ok":true,"runs":[{"endedAt":"2026-12-01T08:01:00.000Z","exitStatus":0,"identifier":"local.backup","kind":"processing","logTail":["done"],"progress":1,"reason":"interval","runID":"r000040","startedAt":"2026-12-01T08:00:00.000Z","stopKind":"success","stopReason":"success","title":"Backing up"}],"sequence":17}"#),
            (.logs, .success(.logs(f.runs, nextCursor: nil, sequence: 0)),
             #"{"ok":true,"runs":[{"endedAt":"2026-12-01T08:01:00.000Z","exitStatus":0,"identifier":"local.backup","kind":"processing","logTail":["done"],"progress":1,"reason":"interval","runID":"r000040","startedAt":"2026-12-01T08:00:00.000Z","stopKind":"success","stopReason":"success","title":"Backing up"}],"sequence":0}"#),
            (.pending, .success(.pending([f.waiting])),
             #"{"ok":true,"pending":[{"earliestBegin":"2026-12-01T08:00:00.000Z","identifier":"local.backup","kind":"processing","reason":"network","title":"Nightly","waitingFor":"network"}]}"#),
            (.explain, .success(.explanation(timeline: f.timeline, pending: [f.waiting])),
             #"{"ok":true,"pending":[{"earliestBegin":"2026-12-01T08:00:00.000Z","identifier":"local.backup","kind":"processing","reason":"network","title":"Nightly","waitingFor":"network"}],"timeline":[{"event":"launch","time":"2026-12-01T08:00:00.250Z"}]}"#),
            (.explain, .success(.explanation(timeline: f.timeline, pending: [], kind: .processing, chainedBy: ["local.snapshot"])),
             #"{"chainedBy":["local.snapshot"],"kind":"processing","ok":true,"pending":[],"timeline":[{"event":"launch","time":"2026-12-01T08:00:00.250Z"}]}"#),
            (.resources, .success(.resources(gpus: f.gpus, inputs: f.inputs)),
             #"{"gpus":[{"detail":"i915","name":"card0"}],"inputs":{"cpuBusy":false,"lowPower":false,"lowPowerSource":"auto","memoryPressure":false,"network":true,"power":"ac","sources":[{"name":"uevent","state":"live"}],"thermal":"nominal"},"ok":true}"#),
            (.resources, .success(.resources(gpus: [], inputs: f.inputs)),
             #"{"gpus":[],"inputs":{"cpuBusy":false,"lowPower":false,"lowPowerSource":"auto","memoryPressure":false,"network":true,"power":"ac","sources":[{"name":"uevent","state":"live"}],"thermal":"nominal"},"ok":true}"#),
            (.metrics, .success(.metrics(f.metrics)),
             #"{"metrics":{"budgets":[],"configErrorCount":0,"durations":[],"jobCount":2,"jobs":[],"paused":false,"pending":[],"running":[{"kind":"refresh","runCount":1}],"runsEnded":[],"startedAt":"2026-12-01T08:00:00.000Z","stateWritable":true,"version":"1.2.3"},"ok":true}"#),
            (.subscribe, .success(.subscribed(sequence: 41)),
             #"{"message":"subscribed","ok":true,"sequence":41}"#),
            (.resume, .success(.done(message: "resumed")),
             #"{"message":"resumed","ok":true}"#),
            (.simulateLaunch, .success(.done(message: "started run r000042 of local.backup", runID: "r000042")),
             #"{"message":"started run r000042 of local.backup","ok":true,"runID":"r000042"}"#),
            (.submit, .success(.done(message: "submitted local.export.1 as request 7: queued (position 2)", requestID: 7)),
             #"{"message":"submitted local.export.1 as request 7: queued (position 2)","ok":true,"requestID":7}"#),
            (.submit, .success(.done(message: "submitted local.export.1 as request 7: started run r000045", runID: "r000045",
                                    requestID: 7)),
             #"{"message":"submitted local.export.1 as request 7: started run r000045","ok":true,"requestID":7,"runID":"r000045"}"#),
            (.trigger, .success(.done(message: "triggered local.backup: it starts as soon as the agent gets to it",
                                    pending: [f.waiting])),
             #"{"message":"triggered local.backup: it starts as soon as the agent gets to it","ok":true,"pending":[{"earliestBegin":"2026-12-01T08:00:00.000Z","identifier":"local.backup","kind":"processing","reason":"network","title":"Nightly","waitingFor":"network"}]}"#),
            (.cancel, .failure(ControlError(code: .notPermitted, message: "no manifest permits x.y")),
             #"{"error":{"code":"not-permitted","message":"no manifest permits x.y"},"ok":false}"#),
        ]
    }

    @Test func everyAnswerIsTheLineAgentdHasAlwaysSentAndReadsBackAsItself() throws {
        for (command, response, text) in Self.lines {
            let sent = try line(response)
            #expect(sent == text, "\(command): \(sent)")
            #expect(try line(decode(text, answering: command)) == text, "\(command)")
        }
    }

    @Test func everyChangeVerbIsAnsweredWithItsMessage() throws {
        let changes = ControlCommand.allCases.filter {
            ![.status, .list, .history, .logs, .pending, .explain, .resources, .metrics, .subscribe].contains($0)
        }
        #expect(changes.count == 14)
        for command in changes {
            let answer = try decode(#"{"message":"done","ok":true,"runID":"r000042"}"#, answering: command).get()
            #expect(try answer.done().message == "done" && answer.done().runID == "r000042", "\(command)")
        }
    }

    @Test func aRefusalIsTheAgentsErrorWhateverTheVerb() throws {
        for command in ControlCommand.allCases {
            let response = try decode(#"{"error":{"code":"not-found","message":"no job x.y"},"ok":false}"#, answering: command)
            #expect(throws: ControlError(code: .notFound, message: "no job x.y")) { try response.get() }
        }
    }

    @Test func aLineWithoutWhatTheVerbAsksForNamesTheVerbAndWhatIsMissing() throws {
        #expect(throws: ControlAnswerMismatch("the agent's answer to status had no status")) {
            try decode(#"{"jobs":[],"ok":true}"#, answering: .status)
        }
        #expect(throws: ControlAnswerMismatch("the agent's answer to logs had no sequence")) {
            try decode(#"{"ok":true,"runs":[]}"#, answering: .logs)
        }
        #expect(throws: ControlAnswerMismatch("the agent's answer to explain had no timeline")) {
            try decode(#"{"ok":true,"pending":[]}"#, answering: .explain)
        }
        #expect(throws: ControlAnswerMismatch("the agent's answer to pause had no message")) {
            try decode(#"{"ok":true}"#, answering: .pause)
        }
        #expect(throws: ControlAnswerMismatch("the agent refused metrics without saying why")) {
            try decode(#"{"ok":false}"#, answering: .metrics)
        }
        for command in ControlCommand.allCases {
            #expect { try decode(#"{"ok":true}"#, answering: command) } throws: { error in
                (error as? ControlAnswerMismatch)?.description.hasPrefix("the agent's answer to \(command.rawValue) had no ") == true
            }
        }
    }

    @Test func askingAnAnswerForAnotherShapeIsAMismatch() {
        #expect(throws: ControlAnswerMismatch("expected status in the agent's answer, got jobs")) {
            try ControlAnswer.jobs([]).status()
        }
        #expect(throws: ControlAnswerMismatch.self) { try ControlAnswer.subscribed(sequence: 1).done() }
    }
}
