// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentCore

/// `submit --wait` and `run --wait`: subscribes to the identifier's events, sends the request on
/// the same connection (so no event of the run can be missed) and follows the run it starts to
/// its end, with a progress line on a terminal and plain lines otherwise. Nothing is polled: it
/// sleeps until the agent writes.
///
/// Exit status: the run's stop reason (`exitStatus(for:)`), or 3/4/5 when the request is
/// refused or the agent goes away, as for every command.
enum RunWait {
    static func run(_ request: ControlRequest, context: CommandContext) throws(CommandFailure) -> Int32 {
        let id = request.target ?? ""
        // Ctrl-C detaches, and says how to find the run again: the signals wait in a signalfd
        // beside the stream instead of ending the process silently.
        let signals = SignalWait()
        defer { signals.restore() }
        let wait = StreamWait(catchSuspend: false)
        var stream = try EventStream.open(EventFilter(identifiers: [id]), then: request, context: context)
        var follower = Follower(id: id, command: request.command, context: context)
        if case .submit(_, let details) = request { follower.submittedTitle = details.title }
        while true {
            while let ready = try stream.nextReady() {
                if let line = ready, let status = try follower.take(line) { return status }
                guard ready == nil || follower.lostStream else { continue }
                // Dropped (it fell behind) or disconnected: a follower never reports a result
                // other than the run's. Subscribe again first, then look in history, so that
                // an end between the two is not missed.
                guard let runID = follower.runID else { throw lost(id, context: context) }
                stream = try EventStream.open(EventFilter(identifiers: [id]), context: context)
                follower.lostStream = false
                if let stop = try recordedEnd(of: runID, identifier: id, context: context) {
                    return follower.ended(runID, stop)
                }
            }
            switch wait.wait(stream.client.fileDescriptor, milliseconds: -1) {
            case .readable, .timedOut, .signal(.resized), .signal(.suspend), .signal(.timedOut): continue
            case .signal(.stop(let number)):
                return follower.detached(signal: number)
            }
        }
    }

    private static func lost(_ id: String, context: CommandContext) -> CommandFailure {
        CommandFailure(exitStatus: 5, message: "agentd at \(context.socketPath) closed the connection before the run of \(id) ended (it stopped, or dropped this follower; agentctl history \(id) shows how the run ended)",
                       agentUnreachable: true)
    }

    /// The stop reason history recorded for `runID`, or nil while it is live.
    static func recordedEnd(of runID: String, identifier: String, context: CommandContext) throws(CommandFailure) -> String? {
        let answer = try context.request(ControlRequest.history(HistoryQuery(
            target: identifier, limit: 100, omitLogTails: true)))
        do {
            return try answer.runs().page.first { $0.runID == runID }?.stopReason?.description
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Whether a run that got to run its plugin did not succeed: its output says why (a spawn
    /// failure, a skip, a cancel or the agent's stop say it in the stop reason).
    static func ranAndFailed(_ stopReason: String) -> Bool {
        switch StopReason(parsing: stopReason) {
        case .failure?, .expired?, .crashed?: true
        case .success?, .cancelled?, .spawnFailed?, .agentRestart?, .skipped?, nil: false
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
        /// `.submit` or `.run`: what the answer's errors advise on.
        let command: ControlCommand
        let context: CommandContext
        /// Our submission's number, once the agent answered.
        var requestID: Int64?
        /// Whether the agent has answered the request (its events may come first).
        var answered = false
        /// Runs started for submissions of this identifier, before our answer came.
        var startedFor: [Int64: String] = [:]
        /// Stop reasons of runs of the identifier that ended before our answer came (a spawn
        /// failure, or a run that was over before the answer's sync).
        var endedEarly: [String: String] = [:]
        /// Submissions dropped before our answer came: the answer waits for the state's sync,
        /// the events do not, so a queued submission cancelled at once is told first.
        var refusedEarly: [Int64: String] = [:]
        /// Titles and progress of those runs, before our answer came (the answer waits for the
        /// sync; a plugin's first PROGRESS= often does not): shown once the answer names the run.
        var titleEarly: [String: String] = [:]
        var progressEarly: [String: Double] = [:]
        var runID: String?
        var title: String?
        /// `--title`: shown until the plugin sets one.
        var submittedTitle: String?
        var progress: Double?
        var lastLine = ""
        /// The agent dropped this follower (`overflow`): the run's end is looked up instead.
        var lostStream = false

        init(id: String, command: ControlCommand = .submit, context: CommandContext) {
            self.id = id
            self.command = command
            self.context = context
        }

        /// Returns the exit status once the run ended.
        mutating func take(_ line: EventStream.Line) throws(CommandFailure) -> Int32? {
            switch line {
            case .response(.failure(let error)):
                throw CommandFailure(error, command: command)
            case .response(.success(let answer)):
                do {
                    let done = try answer.done()
                    context.out(DisplayText.sanitized(done.message))
                    requestID = done.requestID
                    // `run` names the run it started; so does `submit` when it started one at once.
                    runID = runID ?? done.runID
                } catch {
                    throw CommandFailure(error)
                }
                answered = true
                if let requestID, let why = refusedEarly[requestID] { throw dropped(why) }
                if let requestID, let run = startedFor[requestID] { runID = run }
                if let run = runID {
                    title = titleEarly[run] ?? title
                    progress = progressEarly[run] ?? progress
                    if let stop = endedEarly[run] { return ended(run, stop) }
                    show()
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
                if let request = event.requestID, request == requestID {
                    runID = run
                    title = event.title ?? title
                } else if !answered {
                    if let request = event.requestID { startedFor[request] = run }
                    if let text = event.title { titleEarly[run] = text }
                }
                if run == runID { show() }
            case .runProgress?, .runTitle?:
                guard let run = event.runID else { return nil }
                if !answered {
                    if let value = event.progress { progressEarly[run] = value }
                    if let text = event.title { titleEarly[run] = text }
                    return nil
                }
                guard run == runID else { return nil }
                if let value = event.progress { progress = value }
                if let text = event.title { title = text }
                show()
            case .runEnded?:
                guard let run = event.runID else { return nil }
                let stop = event.stopReason?.description ?? "ended"
                if run == runID { return ended(run, stop) }
                if !answered { endedEarly[run] = stop }
            case .requestRefused?:
                guard let request = event.requestID else { return nil }
                guard request == requestID else {
                    if requestID == nil { refusedEarly[request] = event.message ?? "refused" }
                    return nil
                }
                throw dropped(event.message ?? "refused")
            case .overflow?:
                lostStream = true
            default:
                break
            }
            return nil
        }

        private func dropped(_ why: String) -> CommandFailure {
            CommandFailure(exitStatus: 5, message: "the submission of \(id) was dropped before it started: \(DisplayText.sanitized(why))")
        }

        /// Ctrl-C (or SIGTERM, SIGHUP): the run goes on; say which it is and how to stop it.
        func detached(signal: Int32) -> Int32 {
            if context.isTerminal && !lastLine.isEmpty { context.out("") }
            if let runID {
                context.out("still running as \(runID): agentctl cancel \(runID)")
            } else if let requestID {
                context.out("still queued as request \(requestID): agentctl cancel-request \(id)")
            }
            return 128 + signal
        }

        func ended(_ run: String, _ stop: String) -> Int32 {
            if context.isTerminal && !lastLine.isEmpty { context.out("") }
            context.out("\(run) \(id): \(DisplayText.sanitized(stop))")
            // Where to look next, as systemctl start says of a failed unit (on stderr: stdout
            // keeps the one line scripts read).
            if RunWait.ranAndFailed(stop) { context.err("agentctl logs \(run) shows its output") }
            return exitStatus(for: stop)
        }

        private mutating func show() {
            guard let runID else { return }
            let line = RunWait.progressLine(runID: runID, title: title ?? submittedTitle ?? id, progress: progress,
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
