// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
@testable import AgentDaemon

/// A page of `list` or `pending` stops at its limit or at its size, whichever comes first, and
/// says where the next page starts; the pages together hold every entry once.
@Suite struct AnswerPagingTests {
    /// 100 entries of about 1 KiB each (a 1,000-byte string and its quotes).
    private let entries = (0..<100).map { String(format: "%03d", $0) + String(repeating: "x", count: 997) }

    @Test func aPageStopsBeforeItsEntriesWouldPassTheSizeAndSaysWhereTheNextStarts() {
        let (first, next) = AnswerPaging.page(entries, PageRequest(limit: 1_000), maxBytes: 10_000)
        #expect(first.count == 9, "64 bytes of envelope and 9 entries of 1,003 fit in 10,000")
        #expect(first == Array(entries.prefix(9)))
        #expect(next == 9)
    }

    @Test func aPageStopsAtItsLimitAndTheLastPageHasNoNextOffset() {
        #expect(AnswerPaging.page(entries, PageRequest(offset: 10, limit: 5)).nextOffset == 15)
        let last = AnswerPaging.page(entries, PageRequest(offset: 95, limit: 5))
        #expect(last.entries == Array(entries.suffix(5)) && last.nextOffset == nil)
        let past = AnswerPaging.page(entries, PageRequest(offset: 500, limit: 5))
        #expect(past.entries.isEmpty && past.nextOffset == nil, "a page past the end is empty, and the last")
    }

    @Test func anEntryLargerThanAPageStillGoesOutAloneSoPagingEnds() {
        let (page, next) = AnswerPaging.page(entries, PageRequest(offset: 3), maxBytes: 500)
        #expect(page == [entries[3]] && next == 4)
    }

    @Test func followingNextOffsetReadsEveryEntryOnceInOrder() {
        var read: [String] = []
        var offset = 0
        while true {
            let (page, next) = AnswerPaging.page(entries, PageRequest(offset: offset, limit: 7), maxBytes: 6_000)
            read += page
            guard let next else { break }
            #expect(next > offset)
            offset = next
        }
        #expect(read == entries)
    }
}
