// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Glibc

/// `agentctl watch`: a live view of the agent that redraws until Ctrl-C.
///
/// On a terminal it takes over the screen (`ScreenSession`) and draws each frame over the previous
/// one: at once when the event stream says something happened (it then asks for one status
/// report), and every interval to move the clocks. When standard output is not a terminal it
/// prints one plain snapshot per frame instead, separated by a blank line, so
/// `agentctl watch > log` records how the work went. If the agent goes away the view says so and
/// reconnects every interval.
enum WatchCommand {
    static let spec = CommandSpec(
        name: "watch", abstract: "Live view of the inputs, running runs with progress bars, waiting work and config health.",
        discussion: """
        Follows the event stream: redraws as soon as something happens, and every interval to move
        the clocks, until Ctrl-C; the terminal is restored on Ctrl-C and SIGTERM.
        Runs that end while it watches stay under "Finished" for 60 s (at most 5) with how they
        ended and what they said: a success its RESULT=, anything else its last STATUS=.
        When output is not a terminal, prints a plain snapshot per frame, separated by blank lines.
        If agentd stops answering, the view says so and reconnects every interval.
        """,
        examples: ["agentctl watch", "agentctl watch --interval 0.5", "agentctl watch --count 3 > snapshots.txt"],
        options: [
            OptionSpec(long: "interval", valueName: "SECONDS", help: "Longest time between redraws, 0.2 to 60 (default 1)."),
            OptionSpec(long: "count", valueName: "N", help: "Stop after N refreshes (default: until Ctrl-C)."),
        ],
        run: { parsed, context in
            let options = try Options(parsed)
            return run(options, context: context)
        })

    struct Options {
        var intervalMilliseconds = 1000
        var count: Int?

        init(_ parsed: ParsedCommand) throws(UsageError) {
            if let text = parsed.value("interval") {
                guard let seconds = Double(text), seconds >= 0.2, seconds <= 60 else {
                    throw UsageError(message: "--interval: \"\(text)\" is not a number of seconds from 0.2 to 60 (e.g. --interval 0.5)",
                                     commandPath: ["watch"])
                }
                intervalMilliseconds = Int(seconds * 1000)
            }
            if let text = parsed.value("count") {
                guard let value = Int(text), value > 0 else {
                    throw UsageError(message: "--count: \"\(text)\" is not a positive number (e.g. --count 3)", commandPath: ["watch"])
                }
                count = value
            }
        }
    }

    /// Draws until a stop signal or `count` frames. Exit 0, or 5 when `--count` ran out while
    /// the agent was not answering.
    ///
    /// Follows the event stream: an event (run started, progress, ended, config, conditions)
    /// fetches one status report and redraws at once; between events the frame is redrawn every
    /// interval from the last report, so elapsed times move without asking the agent anything.
    /// Without an agent it tries to reconnect every interval.
    static func run(_ options: Options, context: CommandContext) -> Int32 {
        let signals = SignalWait(catchSuspend: context.isTerminal)
        defer { signals.restore() }
        let wait = StreamWait(catchSuspend: context.isTerminal)
        let screen = context.isTerminal ? ScreenSession(output: context.outputDescriptor) : nil
        defer { screen?.end() }
        let footer = "Ctrl-C to quit · every \(seconds(options.intervalMilliseconds))"

        var frames = 0
        var lastAnswer: Int64?
        var stream: EventStream?
        var snapshot = WatchView.Snapshot.failed(message: "connecting…")
        var stale = true
        var fetchedAt: Int64 = 0
        var finished = WatchFinishedRuns()
        while true {
            if stream == nil {
                stream = try? EventStream.open(EventFilter(), context: context)
                stale = true
            }
            if stale {
                snapshot = poll(context, lastAnswer: &lastAnswer)
                if case .status(let status) = snapshot { finished.noteRunning(status.running) }
                stale = false
                fetchedAt = context.clock.now()
            }
            if signals.pendingStop() != nil { break }
            frames += 1
            if !draw(snapshot, screen: screen, frames: frames, footer: footer, context: context,
                     finished: finished.visible(at: context.clock.now())) { break }
            if let count = options.count, frames >= count {
                if case .status = snapshot { return 0 }
                return 5
            }
            var deadline = context.clock.now() + Int64(options.intervalMilliseconds)
            waiting: while true {
                let left = Int(max(0, deadline - context.clock.now()))
                switch wait.wait(stream?.client.fileDescriptor ?? -1, milliseconds: left) {
                case .readable:
                    guard drain(&stream, into: &finished) else { continue }
                    stale = true
                    // At most one report per minimumGap: a plugin flooding PROGRESS= must not
                    // turn the view into a stream of status requests.
                    let next = fetchedAt + Self.minimumGapMilliseconds
                    if stream == nil || context.clock.now() >= next { break waiting }
                    deadline = min(deadline, next)
                case .timedOut, .signal(.resized), .signal(.timedOut):
                    break waiting
                case .signal(.suspend):
                    screen?.suspend()
                case .signal(.stop):
                    return 0
                }
            }
        }
        return 0
    }

    /// The shortest time between two status reports.
    static let minimumGapMilliseconds: Int64 = 100

    /// Reads what arrived; returns whether the view needs a new report (an event came, or the
    /// stream ended, which the report then explains).
    private static func drain(_ stream: inout EventStream?, into finished: inout WatchFinishedRuns) -> Bool {
        guard let current = stream else { return true }
        var changed = false
        do {
            while let ready = try current.nextReady() {
                guard let line = ready else {
                    stream = nil
                    return true
                }
                if case .event(let event, _) = line {
                    finished.note(event)
                    changed = true
                }
            }
        } catch {
            stream = nil
            return true
        }
        return changed
    }

    private static func draw(_ snapshot: WatchView.Snapshot, screen: ScreenSession?, frames: Int, footer: String,
                             context: CommandContext, finished: [WatchFinishedRuns.Run]) -> Bool {
        if let screen {
            let size = Terminal.size(context.outputDescriptor)
            // One column short of the edge: a character in the last column leaves the cursor
            // waiting to wrap, and the erase that follows would remove that character.
            let width = size.map { max(20, $0.columns - 1) } ?? 79
            let lines = WatchView.lines(snapshot, width: width, height: size?.rows, clock: context.clock, footer: footer,
                                        finished: finished)
            return screen.draw(lines.map { $0.rendered(context.style) })
        }
        let lines = WatchView.lines(snapshot, width: context.terminalWidth, height: nil, clock: context.clock, footer: nil,
                                    finished: finished)
        let text = (frames > 1 ? "\n" : "") + lines.map { $0.rendered(context.style) }.joined(separator: "\n") + "\n"
        return Terminal.write(text, to: context.outputDescriptor)
    }

    /// One status request, turned into what the view shows.
    static func poll(_ context: CommandContext, lastAnswer: inout Int64?) -> WatchView.Snapshot {
        do {
            let answer = try context.request(ControlRequest.status, timeout: .seconds(2))
            guard case .status(let status) = answer else {
                return .failed(message: "agentd answered without a status report (agentctl \(AgentVersion.string) may be newer than agentd; restart agentd after an upgrade)")
            }
            lastAnswer = context.now
            return .status(status)
        } catch {
            if error.agentUnreachable {
                // A timeout: something holds the socket and says nothing (SIGSTOP, a hang).
                return .unreachable(socketPath: context.socketPath, lastAnswer: lastAnswer,
                                    silent: error.message.contains("did not answer within"))
            }
            return .failed(message: error.message)
        }
    }

    /// `1 s`, `0.5 s`.
    static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
