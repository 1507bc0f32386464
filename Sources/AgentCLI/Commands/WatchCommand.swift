// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Glibc

/// `agentctl watch`: a live view of the agent that redraws until Ctrl-C.
///
/// On a terminal it takes over the screen (`ScreenSession`): every interval it asks agentd for its
/// status and draws the frame over the previous one. When standard output is not a terminal it
/// prints one plain snapshot per interval instead, separated by a blank line, so
/// `agentctl watch > log` records how the work went. If the agent goes away the view says so and
/// keeps asking.
enum WatchCommand {
    static let spec = CommandSpec(
        name: "watch", abstract: "Live view of the inputs, running runs with progress bars, waiting work and config health.",
        discussion: """
        Redraws every interval until Ctrl-C; the terminal is restored on Ctrl-C and SIGTERM.
        When output is not a terminal, prints a plain snapshot per interval, separated by blank lines.
        If agentd stops answering, the view says so and keeps retrying.
        """,
        examples: ["agentctl watch", "agentctl watch --interval 0.5", "agentctl watch --count 3 > snapshots.txt"],
        options: [
            OptionSpec(long: "interval", valueName: "SECONDS", help: "Time between refreshes, 0.2 to 60 (default 1)."),
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

    /// Polls and draws until a stop signal or `count` frames. Exit 0, or 5 when `--count` ran out
    /// while the agent was not answering.
    static func run(_ options: Options, context: CommandContext) -> Int32 {
        let signals = SignalWait(catchSuspend: context.isTerminal)
        defer { signals.restore() }
        let screen = context.isTerminal ? ScreenSession(output: context.outputDescriptor) : nil
        defer { screen?.end() }
        let footer = "Ctrl-C to quit · every \(seconds(options.intervalMilliseconds))"

        var frames = 0
        var lastAnswer: Int64?
        var answered = false
        while true {
            let snapshot = poll(context, lastAnswer: &lastAnswer)
            if case .status = snapshot { answered = true } else { answered = false }
            if signals.pendingStop() != nil { break }
            frames += 1
            if let screen {
                let size = Terminal.size(context.outputDescriptor)
                // One column short of the edge: a character in the last column leaves the cursor
                // waiting to wrap, and the erase that follows would remove that character.
                let width = size.map { max(20, $0.columns - 1) } ?? 79
                let lines = WatchView.lines(snapshot, width: width, height: size?.rows, clock: context.clock, footer: footer)
                if !screen.draw(lines.map { $0.rendered(context.style) }) { break }
            } else {
                let lines = WatchView.lines(snapshot, width: context.terminalWidth, height: nil, clock: context.clock, footer: nil)
                let text = (frames > 1 ? "\n" : "") + lines.map { $0.rendered(context.style) }.joined(separator: "\n") + "\n"
                if !Terminal.write(text, to: context.outputDescriptor) { break }
            }
            if let count = options.count, frames >= count { return answered ? 0 : 5 }
            switch signals.wait(milliseconds: options.intervalMilliseconds) {
            case .timedOut, .resized: continue
            case .suspend: screen?.suspend()
            case .stop: return 0
            }
        }
        return 0
    }

    /// One status request, turned into what the view shows.
    static func poll(_ context: CommandContext, lastAnswer: inout Int64?) -> WatchView.Snapshot {
        do {
            let response = try context.request(ControlRequest(command: .status), timeout: .seconds(2))
            guard let status = response.status else {
                return .failed(message: "agentd answered without a status report (agentctl \(AgentVersion.string) may be newer than agentd; restart agentd after an upgrade)")
            }
            lastAnswer = context.now
            return .status(status)
        } catch {
            if error.agentUnreachable {
                return .unreachable(socketPath: context.socketPath, lastAnswer: lastAnswer)
            }
            return .failed(message: error.message)
        }
    }

    /// `1 s`, `0.5 s`.
    static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
