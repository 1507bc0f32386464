// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Testing

/// Kinds, reasons and event types are typed from socket to store; the sets a newer agentd may
/// extend still read, and go on unchanged, in an agentctl that does not know the new value.
@Suite struct NewerAgentValueTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try MessageCoding.decode(type, from: Array(json.utf8))
    }

    private func line(_ value: some Encodable) throws -> String {
        String(decoding: try MessageCoding.encodeLine(value), as: UTF8.self)
    }

    @Test func aRunRecordReadsAsTypedValuesAndWritesTheSameLine() throws {
        let json = #"{"endedAt":"2026-12-01T08:00:01.000Z","exitStatus":3,"identifier":"local.a","kind":"processing","logTail":[],"reason":"catch-up","runID":"r1","startedAt":"2026-12-01T08:00:00.000Z","stopKind":"failure","stopReason":"failure(exit 3)"}"#
        let record = try decode(RunRecord.self, json)
        #expect(record.kind == .processing)
        #expect(record.reason == .known(.catchUp))
        #expect(record.stopReason == .known(.failure(exitStatus: 3)))
        let again = try line(record)
        #expect(again.contains(#""kind":"processing""#) && again.contains(#""reason":"catch-up""#))
        #expect(again.contains(#""stopReason":"failure(exit 3)""#) && again.contains(#""stopKind":"failure""#))
    }

    @Test func aStopReasonFromANewerAgentIsKeptAndSentOnAsItsText() throws {
        let json = #"{"identifier":"local.a","kind":"refresh","logTail":[],"reason":"moonrise","runID":"r1","startedAt":"2026-12-01T08:00:00.000Z","stopReason":"expired(solar-flare)"}"#
        let record = try decode(RunRecord.self, json)
        #expect(record.stopReason == .unknown("expired(solar-flare)"))
        #expect(record.reason == .unknown("moonrise"))
        // Nothing derived from a reason this build cannot take apart.
        #expect(record.stopKind == nil && record.expiredBy == nil)
        let again = try line(record)
        #expect(again.contains(#""stopReason":"expired(solar-flare)""#) && again.contains(#""reason":"moonrise""#))
        #expect(!again.contains("stopKind"))
        // What the newer agentd derived itself is passed on as it sent it.
        let derived = #"{"identifier":"local.a","kind":"refresh","logTail":[],"reason":"scheduled","runID":"r1","startedAt":"2026-12-01T08:00:00.000Z","stopKind":"expired","expiredBy":"solar-flare","stopReason":"expired(solar-flare)"}"#
        let passed = try decode(RunRecord.self, derived)
        #expect(passed.stopKind == "expired" && passed.expiredBy == "solar-flare")
        #expect(try line(passed).contains(#""expiredBy":"solar-flare""#))
    }

    @Test func anEventOfAKindThisBuildDoesNotKnowStillReads() throws {
        let json = #"{"sequence":4,"time":"2026-12-01T08:00:00.000Z","type":"run-teleported","runID":"r1"}"#
        let event = try decode(AgentEvent.self, json)
        #expect(event.type == .unknown("run-teleported"))
        #expect(event.eventKind == nil)
        #expect(try line(event).contains(#""type":"run-teleported""#))
    }

    @Test func aJobKindIsOneOfTheThree() throws {
        let json = #"{"exec":[],"identifier":"local.a","kind":"sporadic","source":"jobs.d/a.job","state":"registered"}"#
        #expect(throws: DecodingError.self) { try decode(JobSummary.self, json) }
    }

    @Test func aJobFileTooBrokenToSayItsKindListsItAsADash() throws {
        let refused = JobSummary(identifier: "-", kind: nil, source: "jobs.d/x.job", state: "error (jobs.d/x.job:4)",
                                 exec: [], intervalSeconds: nil)
        let text = try line(refused)
        #expect(text.contains(#""kind":"-""#))
        #expect(try decode(JobSummary.self, text).kind == nil)
        let known = JobSummary(identifier: "local.a", kind: .continued, source: "jobs.d/a.job", state: "registered",
                               exec: [], intervalSeconds: nil)
        #expect(try decode(JobSummary.self, try line(known)).kind == .continued)
    }

    @Test func anInputSourceStateIsOneOfLiveSampledUnavailable() throws {
        let source = try decode(InputSource.self, #"{"name":"psi","state":"sampled","detail":"no triggers"}"#)
        #expect(source.state == .sampled)
        #expect(throws: DecodingError.self) { try decode(InputSource.self, #"{"name":"psi","state":"dozing"}"#) }
    }
}
