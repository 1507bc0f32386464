// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Glibc

/// `agentctl events [--json] [ID]`: follows the agent's event stream, like `journalctl -f`,
/// until Ctrl-C or the agent goes away.
enum EventsCommand {
    static let spec = CommandSpec(
        name: "events", abstract: "Follow what the agent does as it happens: runs, progress, requests, config, conditions.",
        discussion: """
        Prints one line per event until Ctrl-C: local time, identifier, run, what happened.
        --json prints the events as the control socket sends them, one JSON object per line.
        ID may end in .* for that identifier and every one below it. Exit 5 when agentd goes away
        or drops a subscriber that fell behind (an "overflow" event is printed first).
        """,
        examples: ["agentctl events", "agentctl events com.example.demo.*", "agentctl events --json --kind run-ended"],
        options: [jsonOption,
                  OptionSpec(long: "kind", valueName: "K[,K…]", help: "Only these kinds (run-started, run-progress, run-ended, …).")],
        arguments: [ArgumentSpec(name: "ID", help: "Only events of this identifier (or ID.* pattern).", isOptional: true)],
        run: { parsed, context in
            let kinds = parsed.value("kind").map { $0.split(separator: ",").map(String.init) }
            let filter = EventFilter(identifiers: parsed.argument(0).map { [$0] }, kinds: kinds)
            if let problem = filter.problem {
                throw UsageError(message: problem, commandPath: ["events"])
            }
            // An exact identifier that names no job is a typo (did-you-mean), not an endless
            // silent follow: `pending ID` says so as every command does.
            if let id = parsed.argument(0), !id.contains("*") {
                _ = try context.request(ControlRequest.pending(target: id)).pending()
            }
            return try follow(filter, json: parsed.flag("json"), context: context)
        })

    static func follow(_ filter: EventFilter, json: Bool, context: CommandContext) throws(CommandFailure) -> Int32 {
        let signals = SignalWait()
        defer { signals.restore() }
        let wait = StreamWait(catchSuspend: false)
        let stream = try EventStream.open(filter, context: context)
        while true {
            while let ready = try stream.nextReady() {
                guard let line = ready else {
                    context.err("agentctl: " + context.errorStyle.error("agentd at \(context.socketPath) closed the event stream (it stopped, or dropped this subscriber; see \(context.journalAdvice))"))
                    return 5
                }
                guard case .event(let event, let raw) = line else { continue }
                let written = json ? Terminal.write(String(decoding: raw, as: UTF8.self) + "\n", to: context.outputDescriptor)
                                   : Terminal.write(EventLine.text(event, clock: context.clock) + "\n", to: context.outputDescriptor)
                if !written { return 0 }  // the reader went away (| head)
                if event.eventKind == .overflow { return 5 }
            }
            switch wait.wait(stream.client.fileDescriptor, milliseconds: -1) {
            case .readable, .timedOut, .signal(.resized), .signal(.suspend): continue
            case .signal(.stop): return 0
            case .signal(.timedOut): continue
            }
        }
    }
}
