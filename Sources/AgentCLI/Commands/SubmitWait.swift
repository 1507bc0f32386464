// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `submit --wait`: subscribes to the identifier's events, submits on the same connection (so no
/// event of the run can be missed) and follows the run to its end, with a progress line on a
/// terminal and plain lines otherwise. Nothing is polled: it sleeps until the agent writes.
///
/// Exit status: the run's stop reason (`exitStatus(for:)`), or 3/4/5 when the submission is
/// refused or the agent goes away, as for every command.
enum SubmitWait {
    static func run(_ request: ControlRequest, context: CommandContext) throws(CommandFailure) -> Int32 {
        let id = request.target ?? ""
        let stream = try EventStream.open(EventFilter(identifiers: [id]), context: context)
        try stream.send(request)
        var follower = Follower(id: id, context: context)
        while true {
            guard let line = try stream.next(timeout: .seconds(365 * 86_400)) else {
                throw CommandFailure(exitStatus: 5, message: "agentd at \(context.socketPath) closed the connection before the run of \(id) ended (it stopped, or dropped this follower; agentctl history \(id) shows how the run ended)",
                                     agentUnreachable: true)
            }
            if let status = try follower.take(line) { return status }
        }
    }

    /// The exit status for a stop reason (DESIGN §7; documented in docs/agentctl.md): 0
    /// success, 1 failure, 6 expired, 7 cancelled, 8 crashed or spawn-failed, 5 when the agent
    /// stopped under the run (agent-restart), 1 for anything newer.
    static func exitStatus(for stopReason: String) -> Int32 {
        if stopReason == "success" { return 0 }
        if stopReason.hasPrefix("failure") { return 1 }
        if stopReason.hasPrefix("expired") { return 6 }
        if stopReason == "cancelled" { return 7 }
        if stopReason.hasPrefix("crashed") || stopReason.hasPrefix("spawn-failed") { return 8 }
        if stopReason == "agent-restart" { return 5 }
        return 1
    }

    /// What the follower knows so far; fed line by line.
    struct Follower {
        let id: String
        let context: CommandContext
        /// Our submission's number, once the agent answered.
        var requestID: Int64?
        /// Runs started for submissions of this identifier, before our answer came.
        var startedFor: [Int64: String] = [:]
        /// Stop reasons of those runs, when they ended before our answer came (a spawn failure).
        var endedEarly: [String: String] = [:]
        var runID: String?
        var title: String?
        var progress: Double?
        var lastLine = ""

        init(id: String, context: CommandContext) {
            self.id = id
            self.context = context
        }

        /// Returns the exit status once the run ended.
        mutating func take(_ line: EventStream.Line) throws(CommandFailure) -> Int32? {
            switch line {
            case .response(let response):
                if let error = response.error { throw CommandFailure(error, command: .submit) }
                context.out(response.message ?? "submitted \(id)")
                requestID = response.requestID
                if let requestID, let run = startedFor[requestID] {
                    runID = run
                    if let stop = endedEarly[run] { return ended(run, stop) }
                }
                return nil
            case .event(let event, _):
                return try take(event)
            }
        }

        private mutating func take(_ event: AgentEvent) throws(CommandFailure) -> Int32? {
            switch event.eventKind {
            case .runStarted?:
                guard let run = event.runID else { return nil }
                if let request = event.requestID {
                    if request == requestID { runID = run; title = event.title } else { startedFor[request] = run }
                }
                if run == runID { show() }
            case .runProgress?, .runTitle?:
                guard event.runID != nil, event.runID == runID else { return nil }
                if let value = event.progress { progress = value }
                if let text = event.title { title = text }
                show()
            case .runEnded?:
                guard let run = event.runID else { return nil }
                let stop = event.stopReason ?? "ended"
                if run == runID { return ended(run, stop) }
                if requestID == nil && startedFor.values.contains(run) { endedEarly[run] = stop }
            case .requestRefused?:
                guard event.requestID != nil, event.requestID == requestID else { return nil }
                throw CommandFailure(exitStatus: 5, message: "the submission of \(id) was dropped before it started: \(DisplayText.sanitized(event.message ?? "refused"))")
            case .overflow?:
                throw CommandFailure(exitStatus: 5, message: "agentd dropped this follower (it fell behind); the run goes on: agentctl history \(id) shows how it ends")
            default:
                break
            }
            return nil
        }

        private func ended(_ run: String, _ stop: String) -> Int32 {
            if context.isTerminal && !lastLine.isEmpty { context.out("") }
            context.out("\(run) \(id): \(DisplayText.sanitized(stop))")
            return exitStatus(for: stop)
        }

        private mutating func show() {
            guard let runID else { return }
            let line = SubmitWait.progressLine(runID: runID, title: title ?? id, progress: progress,
                                               width: context.terminalWidth ?? 80)
            guard line != lastLine else { return }
            lastLine = line
            if context.isTerminal { context.outRaw("\r\u{1B}[K" + line) } else { context.out(line) }
        }
    }

    static func progressLine(runID: String, title: String, progress: Double?, width: Int) -> String {
        let title = DisplayText.sanitized(title)
        guard let fraction = progress else { return "\(runID) \(title): running" }
        let barWidth = max(10, min(40, width - title.count - 20))
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
        return "\(runID) \(title) [\(bar)] \(Int(fraction * 100))%"
    }
}
