// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Glibc

/// `agentctl request ID …` and `agentctl cancel-request ID|--all` (DESIGN §4, §8): BGTaskScheduler's
/// `submit` of a refresh or processing request and `cancel(taskRequestWithIdentifier:)`.
enum RequestCommands {
    static let request = CommandSpec(
        name: "request", abstract: "Ask for a refresh or processing job's next run, with its own earliest begin and requirements.",
        discussion: "One pending request per identifier: a new one replaces it. Policy still decides (budget, battery, thermal, window); the requirements add to the job's own keys. It launches with reason requested; trigger spacing does not delay it.\nTIME is a calendar expression's next match (09:00, Mon 07:30, 2026-12-01 08:00) or +SPAN from now (+15min, +2h).",
        examples: ["agentctl request com.example.feed.refresh --earliest +15min",
                   "agentctl request com.example.photos.sync --requires-network=unmetered --requires-external-power"],
        options: [OptionSpec(long: "earliest", valueName: "TIME|+SPAN", help: "Not before this (default: as soon as policy allows)."),
                  OptionSpec(long: "requires-network", valueName: "[=unmetered]", help: "Wait for a network (=unmetered: one that is not metered).",
                             valueIsOptional: true),
                  OptionSpec(long: "requires-external-power", help: "Wait for external power.")],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier (refresh or processing).")],
        run: { parsed, context in
            let options = try requestOptions(parsed, now: Double(context.now))
            context.out(try context.request(ControlRequest.request(target: parsed.argument(0) ?? "", options)).done().message)
            return 0
        })

    static let cancelRequest = CommandSpec(
        name: "cancel-request", abstract: "Withdraw pending requests and queued submissions (never a live run: see cancel).",
        examples: ["agentctl cancel-request com.example.feed.refresh", "agentctl cancel-request --all"],
        options: [OptionSpec(long: "all", help: "Every identifier you may change.")],
        arguments: [ArgumentSpec(name: "ID", help: "Job identifier, or a submission's dynamic identifier.", isOptional: true)],
        run: { parsed, context in
            let all = parsed.flag("all")
            guard all != (parsed.argument(0) != nil) else {
                throw UsageError(message: "cancel-request wants an identifier or --all (not both)", commandPath: ["cancel-request"])
            }
            let answer = try context.request(ControlRequest.cancelRequest(
                all ? .all : .identifier(parsed.argument(0) ?? "")))
            context.out(try answer.done().message)
            return 0
        })

    /// `--requires-network` alone is given as `--requires-network=` by people who read the
    /// usage; both, and `=unmetered`, are accepted.
    static func requestOptions(_ parsed: ParsedCommand, now: Double) throws -> RunRequestOptions {
        var options = RunRequestOptions()
        if let text = parsed.value("earliest") {
            guard let time = earliest(text, now: now) else {
                if !text.hasPrefix("+"), case .success = CalendarEventParser.parse(text) {
                    throw UsageError(message: "--earliest: \"\(text)\" is past and does not come again; give a time to come "
                                        + "(+15min, 09:00, Mon 07:30, or a date ahead)", commandPath: ["request"])
                }
                throw UsageError(message: "--earliest: \"\(text)\" is neither +SPAN (+15min) nor a time (09:00, 2026-12-01 08:00)",
                                 commandPath: ["request"])
            }
            options.earliestBegin = time
        }
        if let network = parsed.value("requires-network") {
            switch network {
            case "", "yes", "any": options.requiresNetwork = .any
            case "unmetered": options.requiresNetwork = .unmetered
            default:
                throw UsageError(message: "--requires-network: \"\(network)\" is not a network need (--requires-network or --requires-network=unmetered)",
                                 commandPath: ["request"])
            }
        }
        if parsed.flag("requires-external-power") { options.requiresExternalPower = true }
        return options
    }

    /// `+SPAN` from now, or the next match of a calendar expression in local time.
    static func earliest(_ text: String, now: Double) -> Double? {
        if text.hasPrefix("+") {
            guard let span = TimeSpan.parse(String(text.dropFirst())) else { return nil }
            return (SchedulerTime(seconds: now) + span).seconds
        }
        guard case .success(let event) = CalendarEventParser.parse(text) else { return nil }
        return event.nextMatch(after: SchedulerTime(seconds: now), rule: LocalZone())?.seconds
    }
}

/// The machine's zone, through `localtime_r`, for calendar expressions typed by a person.
struct LocalZone: UTCOffsetRule {
    func utcOffset(at unixSeconds: Int64) -> Int {
        var time = time_t(unixSeconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
