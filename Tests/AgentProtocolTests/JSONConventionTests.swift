// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import FoundationEssentials
import Testing

/// docs/json.md: instants as RFC 3339 UTC text with milliseconds, no escaped slashes, empty
/// lists as `[]`, absent values left out, stop reasons taken apart — on the socket and in
/// every `--json`.
@Suite struct JSONConventionTests {
    @Test func anInstantIsRFC3339UTCWithMilliseconds() {
        #expect(RFC3339.text(milliseconds: 1_796_112_000_123) == "2026-12-01T08:00:00.123Z")
        #expect(RFC3339.text(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.text(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.text(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }

    @Test func everyInstantOfYears0To9999IsWrittenIn24CharactersAndReadsBack() {
        var random = SplitMix64(seed: 3339)
        let first: Int64 = -62_167_219_200_000, last: Int64 = 253_402_300_799_999  // 0000-01-01, 9999-12-31
        for _ in 0..<20_000 {
            let milliseconds = first + Int64(random.next() % UInt64(last - first + 1))
            let text = RFC3339.text(milliseconds: milliseconds)
            #expect(text.utf8.count == 24, "\(text)")
            #expect(RFC3339.milliseconds(text) == milliseconds, "\(milliseconds) → \(text)")
        }
        #expect(RFC3339.text(milliseconds: first) == "0000-01-01T00:00:00.000Z")
        #expect(RFC3339.text(milliseconds: last) == "9999-12-31T23:59:59.999Z")
    }

    @Test func rfc3339TextReadsBackToTheSameMillisecond() {
        for milliseconds: Int64 in [0, -1, 1_796_112_000_123, 951_782_400_000, 4_102_444_799_999, 1_709_164_800_500] {
            #expect(RFC3339.milliseconds(RFC3339.text(milliseconds: milliseconds)) == milliseconds)
        }
        #expect(RFC3339.milliseconds("2026-12-01T09:00:00.1+01:00") == 1_796_112_000_100)
        #expect(RFC3339.milliseconds("2026-12-01T08:00:00Z") == 1_796_112_000_000)
        for bad in ["", "2026-12-01", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-12-01T08:00:00",
                    "2026-12-01T08:00:00.Z", "2026-12-01T08:00:00Zjunk", "１９７０-01-01T00:00:00Z"] {
            #expect(RFC3339.milliseconds(bad) == nil, "\(bad)")
        }
    }

    @Test func theSocketCarriesInstantsAsTextAndUnescapedSlashes() throws {
        let runs = [run(stopReason: "success", exitStatus: 0)]
        let waiting = [PendingSummary(identifier: "local.a", kind: .refresh, waitingFor: "interval", earliestBegin: 1_796_112_000.5)]
        let history = String(decoding: try MessageCoding.encodeLine(ControlResponseFields(.success(.runs(runs, nextCursor: nil)))),
                             as: UTF8.self)
        let pending = String(decoding: try MessageCoding.encodeLine(ControlResponseFields(.success(.pending(waiting)))),
                             as: UTF8.self)
        #expect(history.contains(#""startedAt":"2026-12-01T08:00:00.123Z""#))
        #expect(pending.contains(#""earliestBegin":"2026-12-01T08:00:00.500Z""#))
        #expect(history.contains(#""title":"/tmp/x""#))
        #expect(!history.contains(#"\/"#))
        let decodedRuns = try MessageCoding.decode(ControlResponseFields.self, from: Array(history.utf8))
            .response(to: .history).get().runs().page
        let decodedPending = try MessageCoding.decode(ControlResponseFields.self, from: Array(pending.utf8))
            .response(to: .pending).get().pending()
        #expect(decodedRuns == runs)
        #expect(decodedPending == waiting)
    }

    @Test func anAbsentInstantIsLeftOutNotNull() throws {
        let summary = RunSummary(runID: "r1", identifier: "local.a", kind: .refresh, reason: "interval", pid: 1,
                                 startedAt: 1_796_112_000, deadline: nil)
        let line = String(decoding: try MessageCoding.encodeLine(summary), as: UTF8.self)
        #expect(!line.contains("deadline"))
        #expect(!line.contains("null"))
        #expect(try MessageCoding.decode(RunSummary.self, from: Array(line.utf8)).deadline == nil)
    }

    @Test func anOlderAgentsNumbersStillRead() throws {
        let old = #"{"runID":"r1","identifier":"local.a","kind":"refresh","reason":"interval","startedAt":1796112000123,"endedAt":1796112001000,"logTail":[]}"#
        let record = try MessageCoding.decode(RunRecord.self, from: Array(old.utf8))
        #expect(record.startedAt == 1_796_112_000_123)
        #expect(record.endedAt == 1_796_112_001_000)
    }

    @Test func aStopReasonIsItsTextPlusStructuredFields() throws {
        let failed = try object(run(stopReason: "failure(exit 1)", exitStatus: 1))
        #expect(failed["stopReason"] == "failure(exit 1)" && failed["stopKind"] == "failure" && failed["exitStatus"] == "1")
        let expired = try object(run(stopReason: "expired(max-runtime)", signal: 15))
        #expect(expired["stopKind"] == "expired" && expired["expiredBy"] == "max-runtime" && expired["signal"] == "15")
        let spawn = try object(run(stopReason: "spawn-failed(no such file: /x)"))
        #expect(spawn["stopKind"] == "spawn-failed" && spawn["spawnError"] == "no such file: /x")
        let live = try object(run(stopReason: nil))
        #expect(live["stopKind"] == nil && live["stopReason"] == nil)
        var changed = run(stopReason: nil)
        changed.stopReason = "crashed(signal 11)"
        #expect(changed.stopKind == "crashed")
    }

    @Test func aRunThatPrintedNothingHasNoLogLines() throws {
        #expect(RunRecord.logLines("") == [])
        #expect(RunRecord.logLines(nil) == [])
        #expect(RunRecord.logLines("a\n\nb") == ["a", "", "b"])
        let pretty = try MessageCoding.encodePretty(run(stopReason: "success", logTail: []))
        #expect(pretty.contains(#""logTail" : [],"#))
        #expect(try MessageCoding.encodePretty([String]()) == "[]")
    }

    private func run(stopReason: Reported<StopReason>?, exitStatus: Int32? = nil, signal: Int32? = nil,
                     logTail: [String] = ["done"]) -> RunRecord {
        RunRecord(runID: "r1", identifier: "local.a", kind: .refresh, reason: "interval",
                  startedAt: 1_796_112_000_123, endedAt: nil, stopReason: stopReason, exitStatus: exitStatus,
                  signal: signal, progress: nil, title: "/tmp/x", logTail: logTail)
    }

    /// The top-level scalar fields of a record's JSON, as text.
    private func object(_ record: RunRecord) throws -> [String: String] {
        let data = Data(try MessageCoding.encodeLine(record))
        let any = try JSONDecoder().decode([String: Scalar].self, from: data)
        return any.compactMapValues(\.text)
    }
}

/// A JSON value, kept only when it is a string or a number.
private struct Scalar: Decodable {
    var text: String?
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else {
            text = nil
        }
    }
}
