// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `logs -f`: subscribes to the job's run events and output first, then asks for the kept lines
/// on the same connection. The agent publishes every line read before it answers ahead of the
/// answer, and those lines are in the answer, so the events before it are skipped and the ones
/// after it are new: nothing is missed or printed twice. Then it sleeps until the agent writes.
enum LogsFollower {
    static let kinds = [EventKind.runOutput, .runStarted, .runEnded].map(\.rawValue)

    static func run(target: String, limit: Int?, json: Bool, context: CommandContext) throws -> Int32 {
        // A run id: find its job first (the stream is filtered by identifier).
        var identifier = target
        var onlyRun: String?
        if target.first == "r", target.dropFirst().allSatisfy(\.isNumber), target.count > 1 {
            let first = try context.request(ControlRequest.logs(LogsQuery(target: target, limit: 1)))
            guard let run = try first.runs().page.first else { return 0 }
            identifier = run.identifier
            onlyRun = run.runID
        }
        let signals = SignalWait()
        defer { signals.restore() }
        let wait = StreamWait(catchSuspend: false)
        // A job's submissions run under identifiers below it: the agent sends those runs' events
        // too (`jobs`), not those of a job registered below it. `runs` keeps to this job's as
        // well, for an agent that does not know `jobs` (it then sends everything below).
        let patterns = onlyRun == nil ? [identifier, identifier + ".*"] : [identifier]
        let filter = EventFilter(identifiers: patterns, kinds: kinds, jobs: onlyRun == nil ? [identifier] : nil)
        let stream = try EventStream.open(filter, context: context)
        try stream.send(ControlRequest.logs(LogsQuery(target: target, limit: limit)))
        var printer = Printer(json: json, context: context, onlyRun: onlyRun)
        var runs = FollowedRuns(identifier: identifier)
        var answered = false
        while true {
            while let ready = try stream.nextReady() {
                guard let line = ready else {
                    printer.finish()
                    context.err("agentctl: " + context.errorStyle.error("agentd at \(context.socketPath) closed the stream (it stopped, or dropped this follower; see \(context.journalAdvice))"))
                    return 5
                }
                switch line {
                case .response(.failure(let error)):
                    printer.finish()
                    throw CommandFailure(error, command: .logs)
                case .response(.success(let answer)):
                    answered = true
                    let kept = try answer.runs().page
                    runs.keep(kept.filter { $0.endedAt == nil }.map(\.runID))
                    printer.kept(kept, target: target)
                    if let onlyRun, kept.first(where: { $0.runID == onlyRun })?.endedAt != nil {
                        printer.finish()
                        return 0
                    }
                case .event(let event, _):
                    // Before the answer: already in it.
                    guard answered else { continue }
                    if event.eventKind == .overflow {
                        printer.finish()
                        context.err("agentctl: " + context.errorStyle.error("agentd dropped this follower: it fell too far behind (agentctl logs \(target) shows the kept lines)"))
                        return 5
                    }
                    guard onlyRun == nil ? runs.take(event) : event.runID == onlyRun else { continue }
                    if !printer.event(event) { return 0 }
                    if onlyRun != nil, event.eventKind == .runEnded {
                        printer.finish()
                        return 0
                    }
                }
            }
            switch wait.wait(stream.client.fileDescriptor, milliseconds: -1) {
            case .readable, .timedOut, .signal(.resized), .signal(.suspend), .signal(.timedOut): continue
            case .signal(.stop):
                printer.finish()
                return 0
            }
        }
    }

    /// Which runs' events an identifier's follower shows: its own identifier's, and the runs
    /// of its job's submissions (`run-started` names their job) live when the answer came. A
    /// run is forgotten when it ends.
    struct FollowedRuns {
        let identifier: String
        private(set) var runIDs: Set<String> = []

        init(identifier: String) {
            self.identifier = identifier
        }

        mutating func keep(_ ids: [String]) {
            runIDs.formUnion(ids)
        }

        /// Whether `event` is shown.
        mutating func take(_ event: AgentEvent) -> Bool {
            if event.identifier == identifier { return true }
            guard let run = event.runID else { return false }
            if event.eventKind == .runStarted, event.job == identifier { runIDs.insert(run) }
            defer { if event.eventKind == .runEnded { runIDs.remove(run) } }
            return runIDs.contains(run)
        }
    }

    /// Prints what the follower learns: text lines, or the elements of one JSON array.
    struct Printer {
        let json: Bool
        let context: CommandContext
        let onlyRun: String?
        var writer: PrettyJSONArrayWriter

        init(json: Bool, context: CommandContext, onlyRun: String?) {
            self.json = json
            self.context = context
            self.onlyRun = onlyRun
            writer = PrettyJSONArrayWriter(descriptor: context.outputDescriptor)
        }

        mutating func kept(_ runs: [RunRecord], target: String) {
            if json {
                for run in runs { try? writer.write(LogChunk(run: run)) }
            } else if !runs.isEmpty {
                context.out(LogsCommand.render(runs, target: target, context: context))
            }
        }

        /// False once the reader went away (`| head`).
        mutating func event(_ event: AgentEvent) -> Bool {
            if json {
                try? writer.write(LogChunk(event: event))
                return true
            }
            guard let text = LogsFollower.text(event, context: context) else { return true }
            return Terminal.write(text + "\n", to: context.outputDescriptor)
        }

        func finish() {
            if json { writer.finish() }
        }
    }

    /// A followed event as text: a run's header when it starts, its lines, its end.
    static func text(_ event: AgentEvent, context: CommandContext) -> String? {
        let run = event.runID ?? "-"
        switch event.eventKind {
        case .runStarted?:
            let started = context.clock.format(DisplayClock.floorDivide(event.time, 1000), "%a %Y-%m-%d %H:%M:%S")
            return context.style.apply(.dim, "-- \(DisplayText.sanitized(run)) \(DisplayText.sanitized(event.identifier ?? "")), started \(started) (\(DisplayText.sanitized(event.reason?.description ?? "?"))) --")
        case .runEnded?:
            return context.style.apply(.dim, "-- \(DisplayText.sanitized(run)) ended: \(DisplayText.sanitized(event.stopReason?.description ?? "?")) --")
        case .runOutput?:
            var lines = (event.lines ?? []).map { LogsCommand.line(run, $0) }
            if let dropped = event.droppedLineCount, dropped > 0 {
                lines.insert(context.style.apply(.dim, "\(DisplayText.sanitized(run)): (\(DisplayText.plural(dropped, "line")) left out: the run wrote faster than one event carries)"), at: 0)
            }
            return lines.isEmpty ? nil : lines.joined(separator: "\n")
        default:
            return nil
        }
    }
}
