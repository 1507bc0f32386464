// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// One page of a `list` or `pending` answer (``PageRequest``): entries from the page's offset
/// until its limit or until the next would take the encoded answer past `maxBytes`, so that a
/// page fits what the socket holds for one client however many jobs there are (a non-root
/// reader's 256 KiB went at about 1,000 jobs).
enum AnswerPaging {
    /// The same page size as `history`'s (``HistoryPage``): a quarter of what the socket holds
    /// for a client other than root and group `agentd`.
    static let maxBytes = HistoryPage.maxBytes
    /// Root's and group `agentd`'s pages: a quarter of their 4 MiB, so that a list of 10,000
    /// jobs is a few pages, not forty.
    static let privilegedMaxBytes = 1 << 20

    /// The page size for a reader.
    static func maxBytes(privileged: Bool) -> Int { privileged ? privilegedMaxBytes : maxBytes }
    /// `{"jobs":[],"nextOffset":N,"ok":true}` with room to spare.
    private static let envelopeBytes = 64

    /// The entries of `all` on the page `request` asks for, and where the next page starts.
    /// The first entry of a page always goes in. `size`: never less than an entry's encoding.
    static func page<Entry>(_ all: some Collection<Entry>, _ request: PageRequest, maxBytes: Int = AnswerPaging.maxBytes,
                            size: (Entry) -> Int) -> (entries: [Entry], nextOffset: Int?) {
        var entries: [Entry] = []
        var bytes = envelopeBytes
        var offset = request.offset
        for entry in all.dropFirst(request.offset) {
            guard entries.count < request.limit else { break }
            let size = size(entry) + 1  // and its separating comma
            if !entries.isEmpty, bytes + size > maxBytes { break }
            entries.append(entry)
            bytes += size
            offset += 1
        }
        return (entries, offset < all.count ? offset : nil)
    }

    /// `JobSummary`'s JSON at most: its keys, an instant and numbers at their widest (260
    /// bytes), and its strings escaped.
    static func estimatedBytes(of job: JobSummary) -> Int {
        260 + [job.identifier, job.source, job.state, job.waiting ?? ""].reduce(0) { $0 + HistoryPage.escapedBytes($1) }
            + job.exec.reduce(0) { $0 + HistoryPage.escapedBytes($1) + 1 }
    }

    /// A job's figures in `metrics` at most, with its `ended` run counts by stop reason: keys,
    /// an instant and numbers at their widest (140 bytes; 100 for each count), and its
    /// identifier escaped, once in each.
    static func estimatedBytes(of job: JobFigures, ended: Int) -> Int {
        let identifier = HistoryPage.escapedBytes(job.identifier)
        return 140 + identifier + ended * (100 + identifier)
    }

    /// `PendingSummary`'s JSON at most: its keys, three instants, its request's requirements
    /// and the codes (420 bytes), and its strings escaped.
    static func estimatedBytes(of waiting: PendingSummary) -> Int {
        420 + [waiting.identifier, waiting.waitingFor, waiting.title ?? "", waiting.subtitle ?? ""]
            .reduce(0) { $0 + HistoryPage.escapedBytes($1) }
    }
}
