// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentJSON
import AgentProtocol
import Testing
@testable import AgentDaemon

/// A page of `list` or `pending` stops at its limit or at its size, whichever comes first, and
/// says where the next page starts; the pages together hold every entry once.
@Suite struct AnswerPagingTests {
    /// 100 entries of about 1 KiB each (a 1,000-byte string and its quotes).
    private let entries = (0..<100).map { String(format: "%03d", $0) + String(repeating: "x", count: 997) }
    /// A string's JSON: its bytes and two quotes.
    private static func size(_ text: String) -> Int { text.utf8.count + 2 }

    @Test func aPageStopsBeforeItsEntriesWouldPassTheSizeAndSaysWhereTheNextStarts() {
        let (first, next) = AnswerPaging.page(entries, PageRequest(limit: 1_000), maxBytes: 10_000, size: Self.size)
        #expect(first.count == 9, "64 bytes of envelope and 9 entries of 1,003 fit in 10,000")
        #expect(first == Array(entries.prefix(9)))
        #expect(next == 9)
    }

    @Test func aPageStopsAtItsLimitAndTheLastPageHasNoNextOffset() {
        #expect(AnswerPaging.page(entries, PageRequest(offset: 10, limit: 5), size: Self.size).nextOffset == 15)
        let last = AnswerPaging.page(entries, PageRequest(offset: 95, limit: 5), size: Self.size)
        #expect(last.entries == Array(entries.suffix(5)) && last.nextOffset == nil)
        let past = AnswerPaging.page(entries, PageRequest(offset: 500, limit: 5), size: Self.size)
        #expect(past.entries.isEmpty && past.nextOffset == nil, "a page past the end is empty, and the last")
    }

    @Test func anEntryLargerThanAPageStillGoesOutAloneSoPagingEnds() {
        let (page, next) = AnswerPaging.page(entries, PageRequest(offset: 3), maxBytes: 500, size: Self.size)
        #expect(page == [entries[3]] && next == 4)
    }

    @Test func followingNextOffsetReadsEveryEntryOnceInOrder() {
        var read: [String] = []
        var offset = 0
        while true {
            let (page, next) = AnswerPaging.page(entries, PageRequest(offset: offset, limit: 7), maxBytes: 6_000, size: Self.size)
            read += page
            guard let next else { break }
            #expect(next > offset)
            offset = next
        }
        #expect(read == entries)
    }

    /// The estimates that size a page are never below what is sent: every field present,
    /// numbers at their widest, strings that need escapes.
    @Test func theEstimatesAreNeverBelowTheEncoding() throws {
        let text = "\"quoted\" \\ back/slash \u{1} ctrl, caf\u{E9} \u{2028} line"
        let job = JobSummary(identifier: "local.\(String(repeating: "x", count: 200))", kind: .processing,
                             source: "jobs.d/\(text).job", state: "not-permitted: \(text)",
                             exec: ["/usr/bin/\(text)", text, "", "--flag=\(text)"], intervalSeconds: Int64.max,
                             waiting: "after boot (earliest \(text))", waitingReason: .known(.maxConcurrent),
                             waitingUntil: 253_402_300_799.999)
        let waiting = PendingSummary(identifier: "local.\(String(repeating: "y", count: 200))", kind: .continued,
                                     waitingFor: "budget of \(text) (48/48, refills 00:00)", earliestBegin: 253_402_300_799.999,
                                     title: text, subtitle: text + text,
                                     request: RunRequestOptions(earliestBegin: 253_402_300_799.999, requiresNetwork: .unmetered,
                                                                requiresExternalPower: true),
                                     reason: .known(.triggerSpacing), until: 253_402_300_799.999)
        let encoder = JSONLineEncoder()
        let jobBytes = try encoder.encode(job).count
        #expect(jobBytes <= AnswerPaging.estimatedBytes(of: job), "\(jobBytes) > \(AnswerPaging.estimatedBytes(of: job))")
        let waitingBytes = try encoder.encode(waiting).count
        #expect(waitingBytes <= AnswerPaging.estimatedBytes(of: waiting), "\(waitingBytes) > \(AnswerPaging.estimatedBytes(of: waiting))")
        // Nor far above: a page is not half empty.
        #expect(AnswerPaging.estimatedBytes(of: job) < jobBytes * 3 / 2)
    }
}
