// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// Reads `history` page by page (DESIGN §9: the agent pages long answers), handing each page on
/// as it arrives, until `limit` runs were read or the agent says no more follow.
enum HistoryPager {
    /// Runs shown when `--limit` is not given.
    static let defaultLimit = 20

    static func forEachPage(target: String?, limit: Int, withLogTails: Bool = true, range: StartRange = StartRange(),
                            context: CommandContext, _ body: ([RunRecord]) throws -> Void) throws {
        var remaining = limit
        var cursor: RunCursor?
        repeat {
            let (page, next) = try context.request(ControlRequest.history(HistoryQuery(
                target: target, limit: remaining, cursor: cursor, omitLogTails: !withLogTails,
                since: range.since, until: range.until))).runs()
            let runs = Array(page.prefix(remaining))
            remaining -= runs.count
            try body(runs)
            // An agent that does not page sends no cursor: its one answer is all there is.
            cursor = runs.isEmpty ? nil : next
        } while remaining > 0 && cursor != nil
    }

    /// Up to `limit` runs without their log tails (not even sent): what tables and statistics
    /// need, small enough to hold even for thousands of runs.
    static func summaries(target: String?, limit: Int, range: StartRange = StartRange(), context: CommandContext) throws -> [RunRecord] {
        var all: [RunRecord] = []
        try forEachPage(target: target, limit: limit, withLogTails: false, range: range, context: context) { page in
            all += page.map { run in
                var run = run
                run.logTail = []
                return run
            }
        }
        return all
    }
}

/// `history --since T --until T`: runs started at or after `since` and before `until`
/// (milliseconds), filtered by the agent so pages stay full and cursors right.
struct StartRange: Equatable {
    var since: Int64?
    var until: Int64?

    /// From the options as systemd.time(7) timestamps (`today`, `-2h`, `2026-12-01 10:00`,
    /// `@1700000000`), read at `context`'s clock and zone.
    static func parse(since: String?, until: String?, context: CommandContext, command: [String]) throws(UsageError) -> StartRange {
        let rule = DisplayZoneRule(zone: context.clock.zone)
        func instant(_ option: String, _ text: String?) throws(UsageError) -> Int64? {
            guard let text else { return nil }
            guard let seconds = TimeSpec.parse(text, now: context.now, rule: rule) else {
                throw UsageError(message: "--\(option): \"\(text)\" is not a time (today, yesterday, -2h, \"2h ago\", \"2026-12-01 10:00\", @1700000000)",
                                 commandPath: command)
            }
            return seconds * 1000
        }
        let range = StartRange(since: try instant("since", since), until: try instant("until", until))
        if let from = range.since, let to = range.until, from >= to {
            throw UsageError(message: "--since \(since ?? "") is not before --until \(until ?? ""): no run can be in between", commandPath: command)
        }
        return range
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
