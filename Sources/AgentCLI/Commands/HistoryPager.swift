// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// Reads `history` page by page (DESIGN §9: the agent pages long answers), handing each page on
/// as it arrives, until `limit` runs were read or the agent says no more follow.
enum HistoryPager {
    /// Runs shown when `--limit` is not given.
    static let defaultLimit = 20

    static func forEachPage(target: String?, limit: Int, withLogTails: Bool = true, context: CommandContext,
                            _ body: ([RunRecord]) throws -> Void) throws {
        var remaining = limit
        var cursor: String?
        repeat {
            let response = try context.request(ControlRequest(command: .history, target: target, limit: remaining,
                                                              cursor: cursor, omitLogTails: withLogTails ? nil : true))
            let runs = Array((response.runs ?? []).prefix(remaining))
            remaining -= runs.count
            try body(runs)
            // An agent that does not page sends no cursor: its one answer is all there is.
            cursor = runs.isEmpty ? nil : response.nextCursor
        } while remaining > 0 && cursor != nil
    }

    /// Up to `limit` runs without their log tails (not even sent): what tables and statistics
    /// need, small enough to hold even for thousands of runs.
    static func summaries(target: String?, limit: Int, context: CommandContext) throws -> [RunRecord] {
        var all: [RunRecord] = []
        try forEachPage(target: target, limit: limit, withLogTails: false, context: context) { page in
            all += page.map { run in
                var run = run
                run.logTail = []
                return run
            }
        }
        return all
    }
}

/// Writes a JSON array element by element, byte for byte as `MessageCoding.encodePretty` writes
/// the whole array, so `--json` output can be printed while later pages are still being read.
struct PrettyJSONArrayWriter {
    let descriptor: Int32
    private var count = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    mutating func write<T: Encodable>(_ element: T) throws {
        // Nested lines move in by the array's indentation; empty lines (inside empty arrays) stay
        // empty, as the encoder writes them.
        let indented = try MessageCoding.encodePretty(element)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "  " + $0 }
            .joined(separator: "\n")
        emit((count == 0 ? "[\n" : ",\n") + indented)
        count += 1
    }

    func finish() {
        emit(count == 0 ? "[]\n" : "\n]\n")
    }

    private func emit(_ text: String) {
        _ = Terminal.write(text, to: descriptor)
    }
}
