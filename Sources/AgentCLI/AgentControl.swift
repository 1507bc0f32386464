// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// agentctl's command tree and entry point.
public enum AgentControl {
    public static let root = CommandSpec(
        name: "agentctl", abstract: "Look at and steer agentd, the background-task agent.",
        discussion: "The socket is --socket PATH, else with --user $XDG_RUNTIME_DIR/agentd.sock (your agentd --user), else AGENTD_SOCKET, else your agentd --user's socket when you are not root and it exists, else /run/agentd/agentd.sock.",
        examples: ["agentctl status", "agentctl watch", "agentctl events", "agentctl list --json", "agentctl logs local.backup -f", "agentctl resources", "agentctl check /etc/agentd"],
        options: [OptionSpec(long: "socket", valueName: "PATH", help: "Control socket of the agent."),
                  OptionSpec(long: "user", help: "Talk to your own agent (agentd --user) at $XDG_RUNTIME_DIR/agentd.sock."),
                  OptionSpec(long: "version", help: "Print agentctl's version."),
                  // systemctl and journalctl habits: agentctl never pages, so this changes nothing.
                  OptionSpec(long: "no-pager", help: "Accepted for systemctl's habit; agentctl never pages its output.")],
        subcommands: [StatusCommand.spec, WatchCommand.spec, EventsCommand.spec, ListCommand.spec, SchedulingCommands.pending,
                      RunCommands.history, LogsCommand.spec, SchedulingCommands.explain, StatsCommands.stats,
                      StatsCommands.runIfStale, SchedulingCommands.submit, SchedulingCommands.trigger,
                      RunCommands.runNow, RunCommands.cancel, RequestCommands.request, RequestCommands.cancelRequest, SchedulingCommands.enable, SchedulingCommands.disable,
                      SchedulingCommands.pause, SchedulingCommands.resume, MachineCommands.resources,
                      MachineCommands.lowpower, MetricsCommand.spec, RunCommands.simulate, CheckCommand.spec, ConvertCommand.spec,
                      CalendarCommand.spec, versionSpec, helpSpec])

    /// `agentctl version`, as `systemctl --version` has `systemd-analyze --version`: the habit of
    /// typing it as a word.
    static let versionSpec = CommandSpec(
        name: "version", abstract: "Print agentctl's version (the same as --version).",
        examples: ["agentctl version"],
        run: { _, context in
            context.out("agentctl \(AgentVersion.string)")
            return 0
        })

    /// Listed in the help like any command; the parser answers it (`agentctl help submit`).
    static let helpSpec = CommandSpec(
        name: "help", abstract: "Show help for agentctl or for one command (agentctl help submit).",
        examples: ["agentctl help", "agentctl help submit", "agentctl help simulate launch"],
        arguments: [ArgumentSpec(name: "COMMAND", help: "The command to explain; nothing for the list of commands.", isOptional: true)])

    /// Parses and runs; returns the exit status.
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        main(arguments: arguments, context: CommandContext(environment: environment))
    }

    /// Parses and runs with a given context (tests give one with a fixed clock and width).
    public static func main(arguments: [String], context: CommandContext) -> Int32 {
        let parser = CommandParser(root: root)
        var context = context
        do {
            switch try parser.parse(arguments) {
            case .version:
                context.out("agentctl \(AgentVersion.string)")
                return 0
            case .help(let path):
                context.out(help(for: path, parser: parser))
                return 0
            case .run(let parsed):
                if let socket = parsed.value("socket") {
                    context.socketPath = socket
                    context.isUserAgent = socket == context.userSocketPath
                } else if parsed.flag("user") {
                    guard let user = context.userSocketPath else {
                        throw CommandFailure(exitStatus: 2, message: "--user: XDG_RUNTIME_DIR is not set (or not an absolute path), so your agent's socket cannot be found; set XDG_RUNTIME_DIR=/run/user/$(id -u), or give --socket PATH")
                    }
                    context.socketPath = user
                    context.isUserAgent = true
                }
                guard let node = parser.node(at: parsed.path), let run = node.run else { return 2 }
                return try run(parsed, context)
            }
        } catch let usage as UsageError {
            let command = (["agentctl"] + usage.commandPath).joined(separator: " ")
            context.err("agentctl: " + context.errorStyle.error("\(usage.message) (see '\(command) --help')"))
            return 2
        } catch let failure as CommandFailure {
            context.err("agentctl: " + context.errorStyle.error(failure.message))
            return failure.exitStatus
        } catch {
            context.err("agentctl: " + context.errorStyle.error("\(error) (this is a bug in agentctl; please report it with the command line that caused it)"))
            return 1
        }
    }

    static func help(for path: [String], parser: CommandParser) -> String {
        var inherited: [OptionSpec] = []
        var node = root
        for name in path {
            inherited += node.options.filter { $0.long != "version" }
            guard let child = node.subcommands.first(where: { $0.name == name }) else { break }
            node = child
        }
        return HelpText.render(node, path: path, inherited: inherited)
    }
}
