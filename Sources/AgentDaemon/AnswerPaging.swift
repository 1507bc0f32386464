// SPDX-License-Identifier: Apache-2.0
import AgentJSON
import AgentProtocol

/// One page of a `list` or `pending` answer (``PageRequest``): entries from the page's offset
/// until its limit or until the next would take the encoded answer past `maxBytes`, so that a
/// page fits what the socket holds for one client however many jobs there are (a non-root
/// reader's 256 KiB went at about 1,000 jobs).
enum AnswerPaging {
    /// The same page size as `history`'s (``HistoryPage``).
    static let maxBytes = HistoryPage.maxBytes
    /// `{"jobs":[],"nextOffset":N,"ok":true}` with room to spare.
    private static let envelopeBytes = 64

    /// The entries of `all` on the page `request` asks for, and where the next page starts.
    /// The first entry of a page always goes in.
    static func page<Entry: Encodable>(_ all: some Collection<Entry>, _ request: PageRequest,
                                       maxBytes: Int = AnswerPaging.maxBytes) -> (entries: [Entry], nextOffset: Int?) {
        let encoder = JSONLineEncoder()
        var entries: [Entry] = []
        var bytes = envelopeBytes
        var offset = request.offset
        for entry in all.dropFirst(request.offset) {
            guard entries.count < request.limit else { break }
            // Encoded as sent, with its separating comma; an entry that cannot be encoded
            // cannot be sent either, and is counted as a whole page.
            let size = ((try? encoder.encode(entry).count) ?? maxBytes) + 1
            if !entries.isEmpty, bytes + size > maxBytes { break }
            entries.append(entry)
            bytes += size
            offset += 1
        }
        return (entries, offset < all.count ? offset : nil)
    }
}
