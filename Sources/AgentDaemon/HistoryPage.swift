// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore

/// One `history` answer in the making (DESIGN §9: long answers are paged): runs are added newest
/// first until the row limit or the byte budget is reached, so the encoded answer stays within
/// what the socket holds for one client, however long the history or its log tails.
struct HistoryPage {
    /// Rows per page at most, whatever the request asks.
    static let maxRows = 1_000
    /// Encoded bytes per page at most: a quarter of the socket's 256 KiB per-client output
    /// budget, and small enough that making one page is a short stretch of the loop's time.
    static let maxBytes = 64 << 10

    let limit: Int
    let budget: Int
    private(set) var records: [RunRecord] = []
    /// More runs follow the last one on this page.
    private(set) var isTruncated = false
    private var bytes: Int

    init(limit: Int, budget: Int = HistoryPage.maxBytes) {
        self.limit = max(1, min(limit, Self.maxRows))
        self.budget = budget
        bytes = Self.envelopeBytes
    }

    /// Where the next page starts, if one does.
    var nextCursor: RunCursor? { isTruncated ? records.last.flatMap(RunCursor.init) : nil }

    /// Adds the next older run; false once the page is full (the run was not added, and it says
    /// that more follow).
    mutating func add(_ record: RunRecord) -> Bool {
        guard records.count < limit else {
            isTruncated = true
            return false
        }
        var record = record
        var size = Self.estimatedBytes(of: record)
        if records.isEmpty {
            // The first run always goes in, with as much of its log tail as fits.
            while bytes + size > budget, !record.logTail.isEmpty {
                record.logTail.removeFirst()
                size = Self.estimatedBytes(of: record)
            }
        } else if bytes + size > budget {
            isTruncated = true
            return false
        }
        records.append(record)
        bytes += size
        return true
    }

    // MARK: size

    /// `{"nextCursor":"…","ok":true,"runs":[]}` with room for a long run id.
    private static let envelopeBytes = 128

    /// Never less than the run's JSON encoding (with its separating comma): keys and numbers at
    /// their widest, strings at their escaped length.
    static func estimatedBytes(of record: RunRecord) -> Int {
        // The stop reason twice: `spawnError` repeats its text. 700: keys (those of what the run
        // said too), numbers at their widest, the two RFC 3339 instants and the stop kind and
        // `expiredBy` words.
        let notes = record.notes
        let stop = record.stopReason?.description ?? ""
        let strings = [record.runID, record.identifier, record.kind.rawValue, record.reason.description,
                       stop, stop, record.title ?? "",
                       notes.statusText ?? "", notes.result ?? "", notes.checkpointGiven ?? "",
                       notes.checkpointLeft ?? ""]
        return 700 + strings.reduce(0) { $0 + escapedBytes($1) }
            + record.logTail.reduce(0) { $0 + escapedBytes($1) + 1 }
    }

    /// The length of `text` as a JSON string, quotes included, counted generously: escapes for
    /// quotes, backslashes, slashes and control characters, two bytes per byte of non-ASCII text
    /// (room for `\u2028`-style escapes).
    static func escapedBytes(_ text: String) -> Int {
        var count = 2
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x2F, 0x08, 0x09, 0x0A, 0x0C, 0x0D: count += 2
            case 0..<0x20, 0x7F: count += 6
            case 0x80...: count += 2
            default: count += 1
            }
        }
        return count
    }
}

extension RunCursor {
    /// The cursor that continues after `record`: its run id and start.
    init?(_ record: RunRecord) {
        guard let run = RunID(parsing: record.runID) else { return nil }
        self.init(runID: run, startedAt: record.startedAt)
    }
}

extension RunStore {
    /// Where a page after `cursor` starts: the cursor's own start, or, for a bare run id, that
    /// run's (nil when no such run is kept).
    func position(of cursor: RunCursor) throws -> HistoryPosition? {
        let runID = cursor.runID.description
        if let started = cursor.startedAt {
            return HistoryPosition(startedAt: started, runID: runID)
        }
        return try run(runID).map { HistoryPosition(startedAt: $0.record.startedAt, runID: runID) }
    }
}
