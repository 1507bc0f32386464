// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import AgentProtocol

/// `agentctl calendar EXPR… [--iterations N] [--base-time TIME]`: what `systemd-analyze calendar`
/// prints for a calendar event — its normalized form and next elapses in local time and UTC —
/// for `Schedule=` values, computed by the agent's own parser and matcher. Offline.
enum CalendarCommand {
    static let spec = CommandSpec(
        name: "calendar", abstract: "Show when a Schedule= calendar event elapses, like systemd-analyze calendar.",
        discussion: "Prints each expression's normalized form and its next elapses (local time, then UTC) as agentd computes them. TIME takes systemd's timestamps: 2026-12-01 09:00, @1796000000, tomorrow, -2h. Exits 1 when an expression is not valid.",
        examples: ["agentctl calendar 'Mon..Fri 09:00'", "agentctl calendar --iterations 5 '*-02~01'",
                   "agentctl calendar --base-time '2027-03-27 12:00' '*-*-* 02:30 Europe/Berlin'"],
        options: [OptionSpec(long: "iterations", valueName: "N", help: "How many elapses to show (default 1)."),
                  OptionSpec(long: "base-time", valueName: "TIME", help: "Compute elapses after TIME instead of now."),
                  jsonOption],
        arguments: [ArgumentSpec(name: "EXPR", help: "A calendar event, as Schedule= takes it.", isRepeated: true)],
        run: { parsed, context in try run(parsed, context) })

    static func run(_ parsed: ParsedCommand, _ context: CommandContext) throws -> Int32 {
        var iterations = 1
        if let text = parsed.value("iterations") {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw UsageError(message: "--iterations \(text): give a number from 1 to 10000", commandPath: ["calendar"])
            }
            iterations = value
        }
        let rule = DisplayZoneRule(zone: context.clock.zone)
        var base = context.now
        if let text = parsed.value("base-time") {
            guard let value = TimeSpec.parse(text, now: context.now, rule: rule) else {
                throw UsageError(message: "--base-time \(text): not a time (2026-12-01 09:00, @1796000000, tomorrow, -2h)",
                                 commandPath: ["calendar"])
            }
            base = value
        }
        var reports: [CalendarReport] = []
        var failed = false
        for expression in parsed.arguments {
            switch CalendarEventParser.analyze(expression, zones: ZoneFiles.lookup) {
            case .failure(let error):
                context.err("agentctl: " + context.errorStyle.error(DisplayText.sanitized(error.message)))
                failed = true
            case .success(let analyzed):
                var elapses: [Int64] = []
                var after = SchedulerTime(seconds: Double(base))
                while elapses.count < iterations, let next = analyzed.event.nextMatch(after: after, rule: rule) {
                    elapses.append(Int64((next.seconds * 1000).rounded(.down)))
                    after = next
                }
                reports.append(CalendarReport(originalForm: expression, normalizedForm: analyzed.normalizedText,
                                              nextElapses: elapses.map { Instant(wrappedValue: $0) }))
            }
        }
        if parsed.flag("json") {
            context.out(try MessageCoding.encodePretty(reports))
        } else if !reports.isEmpty {
            context.out(reports.map { render($0, context: context) }.joined(separator: "\n\n"))
        }
        return failed ? 1 : 0
    }

    /// systemd-analyze's layout: labels right-aligned to a colon at column 16.
    static func render(_ report: CalendarReport, context: CommandContext) -> String {
        func line(_ label: String, _ value: String) -> String {
            String(repeating: " ", count: max(0, 15 - label.count)) + label + ": " + value
        }
        // As systemd: the original only when normalizing changed it.
        var lines = report.originalForm == report.normalizedForm ? []
            : [line("Original form", DisplayText.sanitized(report.originalForm))]
        lines.append(line("Normalized form", report.normalizedForm))
        let utc = DisplayClock(zone: .fixedOffset(seconds: 0)) { 0 }
        let showsUTC = !isUTC(context.clock.zone, now: context.now)
        if report.nextElapses.isEmpty { lines.append(line("Next elapse", "never")) }
        for (index, milliseconds) in report.nextElapses.map(\.wrappedValue).enumerated() {
            let seconds = DisplayClock.floorDivide(milliseconds, 1000)
            lines.append(line(index == 0 ? "Next elapse" : "Iter. #\(index + 1)",
                              context.clock.format(seconds, "%a %Y-%m-%d %H:%M:%S %Z")))
            if showsUTC { lines.append(line("(in UTC)", utc.format(seconds, "%a %Y-%m-%d %H:%M:%S UTC"))) }
            lines.append(line("From now", RelativeTime.text(milliseconds: milliseconds - context.clock.now())))
        }
        return lines.joined(separator: "\n")
    }

    /// Whether local time is UTC all year (systemd then leaves out the `(in UTC)` lines).
    static func isUTC(_ zone: DisplayClock.Zone, now: Int64) -> Bool {
        let rule = DisplayZoneRule(zone: zone)
        return [0, 91, 182, 273].allSatisfy { rule.utcOffset(at: now + Int64($0) * 86_400) == 0 }
    }
}

/// `agentctl calendar --json`: one object per valid expression.
struct CalendarReport: Codable, Equatable {
    var originalForm: String
    var normalizedForm: String
    /// Milliseconds since the epoch, printed as RFC 3339 instants.
    var nextElapses: [Instant<EpochMilliseconds>]
}
