// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentProtocol

/// The event stream's instants (RFC 3339 UTC with milliseconds) and filters.
@Suite struct EventStreamFormatTests {
    @Test func anEventsTimeIsAnRFC3339InstantInUTCWithMilliseconds() throws {
        var event = AgentEvent(sequence: 3, time: 1_796_112_000_123, type: .runEnded, identifier: "a.b", runID: "r000001")
        event.stopReason = "success"
        let line = String(decoding: try MessageCoding.encodeLine(event), as: UTF8.self)
        #expect(line == #"{"identifier":"a.b","runID":"r000001","sequence":3,"stopReason":"success","time":"2026-12-01T08:00:00.123Z","type":"run-ended"}"#)
        #expect(try MessageCoding.decode(AgentEvent.self, from: Array(line.utf8)) == event)
    }

    @Test func identifierPatternsMatchTheIdentifierAndEverythingBelowIt() {
        let filter = EventFilter(identifiers: ["com.example.export.*", "local.tidy"])
        #expect(filter.matches(kind: .runStarted, identifier: "com.example.export"))
        #expect(filter.matches(kind: .runStarted, identifier: "com.example.export.1234"))
        #expect(!filter.matches(kind: .runStarted, identifier: "com.example.exporter"))
        #expect(filter.matches(kind: .runEnded, identifier: "local.tidy"))
        #expect(!filter.matches(kind: .runEnded, identifier: "local.tidy.more"))
        #expect(filter.matches(kind: .agentStopping, identifier: nil), "agent-wide events pass")
        #expect(EventFilter(identifiers: ["*"]).matches(kind: .jobRegistered, identifier: "any.thing"))
    }

    @Test func kindsNarrowAndNonsenseIsRefusedWithTheList() {
        let ends = EventFilter(kinds: ["run-ended"])
        #expect(ends.matches(kind: .runEnded, identifier: "a.b"))
        #expect(!ends.matches(kind: .runProgress, identifier: "a.b"))
        #expect(!ends.matches(kind: .agentStopping, identifier: nil))
        #expect(EventFilter(kinds: ["run-exploded"]).problem?.contains("run-started, run-progress") == true)
        #expect(EventFilter(identifiers: ["a.*.b"]).problem != nil)
        #expect(EventFilter(identifiers: [".*"]).problem != nil)
        #expect(EventFilter(identifiers: ["a.b.*", "*"]).problem == nil)
    }
}
