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

    /// Issue 28 item 7: malformed patterns were accepted although the docs say they are refused.
    @Test func malformedPatternsAreRefusedNamingThePattern() {
        let spaced = EventFilter(identifiers: ["a b"]).problem
        #expect(spaced?.hasPrefix("\"a b\" is not an identifier pattern") == true, "\(spaced ?? "accepted")")
        let escape = EventFilter(identifiers: ["a\u{1B}[31m"]).problem
        #expect(escape?.hasPrefix("\"a\\x1B[31m\" is not an identifier pattern") == true, "\(escape ?? "accepted")")
        #expect(EventFilter(identifiers: ["a/../b"]).problem != nil)
        #expect(EventFilter(identifiers: ["a/../b.*"]).problem != nil)
    }

    /// The matcher a subscription keeps answers as the filter does, and its cost per event does
    /// not grow with the number of patterns (10,000 once cost seconds of the loop).
    @Test func theCompiledMatcherAgreesWithTheFilter() {
        let patterns = ["com.example.export.*", "local.tidy", "org.x.*"] + (0..<10_000).map { "pad.\($0)" }
        let filter = EventFilter(identifiers: patterns, kinds: ["run-started", "run-ended"])
        let matcher = filter.matcher()
        let identifiers = ["com.example.export", "com.example.export.1234", "com.example.exporter", "local.tidy",
                           "local.tidy.more", "org.x", "org.x.y.z", "org", "pad.9999", "pad.10000", "nope"]
        for identifier in identifiers {
            for kind in [EventKind.runStarted, .runProgress, .runEnded] {
                #expect(matcher.matches(kind: kind, identifier: identifier)
                        == filter.matches(kind: kind, identifier: identifier), "\(kind) \(identifier)")
            }
        }
        #expect(matcher.matches(kind: .agentStopping, identifier: nil) == filter.matches(kind: .agentStopping, identifier: nil))
        #expect(EventFilter().matcher().matches(kind: .runProgress, identifier: "any"))
        #expect(EventFilter(identifiers: ["*"]).matcher().matches(kind: .runProgress, identifier: "any.thing"))
    }

    /// `jobs` follows a job: its runs under its own identifier and its submissions' dynamic
    /// ones, never a job registered below it; events that are not a run's go by identifier.
    @Test func aJobFilterTakesTheJobsSubmissionsAndNotAJobBelowIt() {
        let filter = EventFilter(jobs: ["com.example.export"])
        let matcher = filter.matcher()
        let cases: [(EventKind, String?, String?, Bool)] = [
            (.runStarted, "com.example.export", "com.example.export", true),
            (.runProgress, "com.example.export.Holidays", "com.example.export", true),
            (.runProgress, "com.example.export.hd", "com.example.export.hd", false),
            (.jobRegistered, "com.example.export", nil, true),
            (.jobRegistered, "com.example.export.hd", nil, false),
            (.requestQueued, "com.example.export.Holidays", nil, false),
            (.agentStopping, nil, nil, true),
        ]
        for (kind, identifier, job, expected) in cases {
            #expect(filter.matches(kind: kind, identifier: identifier, job: job) == expected, "\(kind) \(identifier ?? "-")")
            #expect(matcher.matches(kind: kind, identifier: identifier, job: job) == expected, "\(kind) \(identifier ?? "-")")
        }
        // With identifier patterns, both must hold.
        let both = EventFilter(identifiers: ["com.example.export.Holidays"], jobs: ["com.example.export"])
        #expect(both.matcher().matches(kind: .runEnded, identifier: "com.example.export.Holidays", job: "com.example.export"))
        #expect(!both.matcher().matches(kind: .runEnded, identifier: "com.example.export", job: "com.example.export"))
    }

    @Test func aJobFilterNamesIdentifiersExactly() {
        #expect(EventFilter(jobs: ["com.example.*"]).problem?.contains("without patterns") == true)
        #expect(EventFilter(jobs: ["a b"]).problem?.contains("\"a b\"") == true)
        #expect(EventFilter(jobs: ["com.example.export"]).problem == nil)
    }
}
