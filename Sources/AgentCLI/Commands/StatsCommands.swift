// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// `agentctl stats [ID]` and `agentctl run-if-stale ID --max-age SPAN`.
enum StatsCommands {
    static let stats = CommandSpec(
        name: "stats", abstract: "Per identifier over 7 days: runs, successes, median gap, share of days kept fresh.",
        discussion: "\"fresh days\" is the share of the last 7 days with a successful run within 24 h of the previous success; a job whose first run is less than 7 days old is judged on the days since then.",
        examples: ["agentctl stats", "agentctl stats com.example.demo.refresh --json"],
        options: [jsonOption],
        arguments: [ArgumentSpec(name: "ID", help: "Only this identifier.", isOptional: true)],
        run: { parsed, context in
            let runs = try HistoryPager.summaries(target: parsed.argument(0), limit: 10_000, context: context)
            let rows = RunStatistics.compute(runs, now: context.now)
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(rows))
            } else if rows.isEmpty {
                context.out("No runs in the last 7 days.")
            } else {
                context.out(Table(columns: [.fixed("IDENTIFIER"), .fixed("RUNS"), .fixed("SUCCESSES"), .fixed("MEDIAN GAP"), .fixed("FRESH DAYS")],
                                  rows: rows.map {
                    [Table.Cell($0.identifier), Table.Cell(String($0.runs)), Table.Cell(String($0.successes)),
                     Table.Cell($0.medianGapSeconds.map { HumanTime.span(seconds: $0) } ?? "-"),
                     Table.Cell("\(Int(($0.freshDayShare * 100).rounded()))%")]
                }).render(width: context.terminalWidth))
            }
            return 0
        })

    static let runIfStale = CommandSpec(
        name: "run-if-stale", abstract: "Run a job now only if its last success is older than --max-age (the foreground fallback).",
        examples: ["agentctl run-if-stale com.example.demo.refresh --max-age 12h"],
        options: [OptionSpec(long: "max-age", valueName: "SPAN", help: "e.g. 30min, 12h, 1d.")],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier.")],
        run: { parsed, context in
            guard let text = parsed.value("max-age") else {
                throw UsageError(message: "--max-age is needed (e.g. --max-age 12h)", commandPath: ["run-if-stale"])
            }
            guard let span = TimeSpan.parse(text) else {
                throw UsageError(message: "--max-age: \"\(text)\" is not a time span (examples: 30min, 12h, 1d)", commandPath: ["run-if-stale"])
            }
            let answer = try context.request(ControlRequest.runIfStale(target: parsed.argument(0) ?? "",
                                                                      maxAge: .seconds(span.components.seconds)))
            context.out(try answer.done().message)
            return 0
        })
}

/// One row of `agentctl stats`.
struct RunStatistics: Codable, Equatable {
    var identifier: String
    var runs: Int
    var successes: Int
    var medianGapSeconds: Int64?
    /// 0...1: days of the last 7 (of those since the first run, when it is newer) with a success
    /// within 24 h of the previous success.
    var freshDayShare: Double

    // Counts end in `Count`, as in `status --json` (docs/json.md).
    enum CodingKeys: String, CodingKey {
        case identifier, runs = "runCount", successes = "successCount", medianGapSeconds, freshDayShare
    }

    static func compute(_ records: [RunRecord], now: Int64) -> [RunStatistics] {
        let windowStart = (now - 7 * 86_400) * 1000
        let byIdentifier = Dictionary(grouping: records, by: \.identifier)
        return byIdentifier.keys.sorted().compactMap { id in
            let all = (byIdentifier[id] ?? []).sorted { $0.startedAt < $1.startedAt }
            let recent = all.filter { $0.startedAt >= windowStart }
            guard !recent.isEmpty else { return nil }
            let starts = recent.map { $0.startedAt / 1000 }
            let gaps = zip(starts.dropFirst(), starts).map { $0 - $1 }.sorted()
            let successTimes = all.filter { $0.stopReason?.known == .success }.map { $0.startedAt / 1000 }
            let firstRun = all.first.map { $0.startedAt / 1000 }
            return RunStatistics(identifier: id, runs: recent.count,
                                 successes: recent.filter { $0.stopReason?.known == .success }.count,
                                 medianGapSeconds: gaps.isEmpty ? nil : gaps[gaps.count / 2],
                                 freshDayShare: FreshDays.share(successStarts: successTimes, firstRun: firstRun, now: now))
        }
    }
}
