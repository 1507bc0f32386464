// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentProtocol

/// The event stream's instants (RFC 3339 UTC with milliseconds) and filters.
@Suite struct EventStreamFormatTests {
    @Test func instantsAreRFC3339InUTCWithMilliseconds() {
        #expect(EventTimestamp.text(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(EventTimestamp.text(milliseconds: 1_796_112_000_123) == "2026-12-01T08:00:00.123Z")
        #expect(EventTimestamp.text(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(EventTimestamp.text(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func instantsAgreeWithGmtimeAndReadBack() {
        var seconds: Int64 = -86_400 * 400
        while seconds < 86_400 * 365 * 200 {
            let milliseconds = seconds * 1000 + abs(seconds) % 997
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let text = EventTimestamp.text(milliseconds: milliseconds)
            #expect(text.hasPrefix(String(format4(Int(parts.tm_year) + 1900)) + "-"), "\(text)")
            #expect(Int(text.dropFirst(5).prefix(2)) == Int(parts.tm_mon) + 1 && Int(text.dropFirst(8).prefix(2)) == Int(parts.tm_mday), "\(text)")
            #expect(EventTimestamp.milliseconds(from: text) == milliseconds, "\(text)")
            seconds += 86_400 * 13 + 3_607
        }
        #expect(EventTimestamp.milliseconds(from: "2026-12-01 08:00:00.123Z") == nil)
        #expect(EventTimestamp.milliseconds(from: "2026-13-01T08:00:00.123Z") == nil)
    }

    private func format4(_ year: Int) -> String {
        let digits = String(year)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
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
