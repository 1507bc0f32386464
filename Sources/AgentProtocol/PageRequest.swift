// SPDX-License-Identifier: Apache-2.0

/// Which page of a long `list` or `pending` answer to send (DESIGN §9: long answers are paged):
/// up to `limit` entries from entry `offset`, fewer when they would not fit in one page
/// (64 KiB of JSON; 1 MiB for root and group `agentd`). The answer's `nextOffset` says where the next page starts; the last page
/// has none. Without it (an older agentctl) the whole answer comes at once, as it always did.
///
/// Entries are counted in the answer's order (`list`: by identifier, then file; `pending`: by
/// earliest begin, then the queued submissions), so a job added or removed between two pages
/// may shift one entry onto both or neither.
public struct PageRequest: Sendable, Hashable {
    public var offset: Int
    public var limit: Int

    /// Entries per page at most, whatever the request asks.
    public static let maxLimit = 10_000

    public init(offset: Int = 0, limit: Int = PageRequest.maxLimit) {
        self.offset = max(0, offset)
        self.limit = min(max(1, limit), Self.maxLimit)
    }
}

extension PageRequest {
    /// Every entry of a paged answer: `page` is asked for each page after the last until its
    /// answer says none follows (`nextOffset` nil) or `page` gives nil (stop with what was
    /// read). An agent that does not page answers everything in its first page. Each page must
    /// start past the last; anything else would never end.
    public static func readAll<Entry, Failure: Error>(
        _ page: (PageRequest) throws(Failure) -> (entries: [Entry], nextOffset: Int?)?) throws(Failure) -> [Entry] {
        var all: [Entry] = []
        var offset = 0
        while let answer = try page(PageRequest(offset: offset)) {
            all += answer.entries
            guard let next = answer.nextOffset, next > offset else { break }
            offset = next
        }
        return all
    }
}
