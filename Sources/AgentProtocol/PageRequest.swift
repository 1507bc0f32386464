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
