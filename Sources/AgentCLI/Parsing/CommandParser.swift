// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Walks the command tree along the tokens: options are accepted at the level they are declared
/// or any level below it (so `agentctl --json status` and `agentctl status --json` both work).
public struct CommandParser: Sendable {
    public let root: CommandSpec

    public init(root: CommandSpec) {
        self.root = root
    }

    public func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        var node = root
        var path: [String] = []
        var available = root.options
        var parsed = ParsedCommand(path: [], flags: [], values: [:], arguments: [], passthrough: [])
        var tokens = Token.tokenize(arguments)[...]

        while let token = tokens.popFirst() {
            switch token {
            case .long("help", _), .short("h"):
                return .help(commandPath: path)
            case .long("version", _) where path.isEmpty:
                return .version
            case .long("version", _):
                throw UsageError(message: "--version is an option of agentctl itself (agentctl --version)", commandPath: path)
            case .long(let name, let inline):
                guard let option = available.first(where: { $0.long == name }) else {
                    let hint = NameSuggestion.closest(to: name, among: available.map(\.long)).map { "; did you mean --\($0)?" } ?? ""
                    throw UsageError(message: "unknown option '--\(name)'\(hint)", commandPath: path)
                }
                try take(option, inline: inline, tokens: &tokens, into: &parsed, path: path)
            case .short(let letter):
                guard let option = available.first(where: { $0.short == letter }) else {
                    throw UsageError(message: "unknown option '-\(letter)'", commandPath: path)
                }
                try take(option, inline: nil, tokens: &tokens, into: &parsed, path: path)
            case .cluster(let letters):
                var rest = Substring(letters)
                while let letter = rest.popFirst() {
                    if letter == "h" { return .help(commandPath: path) }
                    guard let option = available.first(where: { $0.short == letter }) else {
                        throw UsageError(message: "unknown option '-\(letter)'", commandPath: path)
                    }
                    // An option that takes a value takes the rest of the word, if any.
                    let takesValue = !option.isFlag && !option.valueIsOptional
                    try take(option, inline: takesValue && !rest.isEmpty ? String(rest) : nil, tokens: &tokens,
                             into: &parsed, path: path)
                    if takesValue { break }
                }
            case .word("help") where path.isEmpty:
                return .help(commandPath: try helpPath(tokens))
            case .word(let word):
                if parsed.arguments.isEmpty, let child = node.subcommand(named: word) {
                    node = child
                    path.append(word)
                    available += child.options
                } else if !node.subcommands.isEmpty && node.run == nil {
                    let known = node.subcommands.map(\.name)
                    let close = NameSuggestion.candidates(for: word, among: known)
                    if !close.isEmpty {
                        throw UsageError(message: "unknown command '\(word)'; did you mean \(close.joined(separator: " or "))?", commandPath: path)
                    }
                    throw UsageError(message: "unknown command '\(word)' (expected one of: \(known.joined(separator: ", ")))", commandPath: path)
                } else {
                    parsed.arguments.append(word)
                }
            case .passthrough(let rest):
                guard node.acceptsPassthrough else {
                    throw UsageError(message: "'\(path.joined(separator: " "))' takes no arguments after '--'", commandPath: path)
                }
                parsed.passthrough = rest
            }
        }
        parsed.path = path
        try validate(parsed, against: node)
        return .run(parsed)
    }

    /// `agentctl help [COMMAND [SUBCOMMAND]]`: the words after `help` must name a command.
    private func helpPath(_ tokens: ArraySlice<Token>) throws(UsageError) -> [String] {
        let asksForHelp = tokens.contains { token in
            if case .long("help", _) = token { return true }
            if case .cluster(let letters) = token { return letters.contains("h") }
            return token == .short("h")
        }
        if asksForHelp { return ["help"] }
        var node = root
        var path: [String] = []
        for case .word(let word) in tokens {
            guard let child = node.subcommand(named: word) else {
                let close = NameSuggestion.candidates(for: word, among: node.subcommands.map(\.name))
                let hint = close.isEmpty ? "" : "; did you mean \(close.joined(separator: " or "))?"
                throw UsageError(message: "help: no command '\((path + [word]).joined(separator: " "))'\(hint)", commandPath: path)
            }
            node = child
            path.append(word)
        }
        return path
    }

    /// Finds the node for a command path (for help and for running).
    public func node(at path: [String]) -> CommandSpec? {
        var node = root
        for name in path {
            guard let child = node.subcommand(named: name) else { return nil }
            node = child
        }
        return node
    }

    private func take(_ option: OptionSpec, inline: String?, tokens: inout ArraySlice<Token>,
                      into parsed: inout ParsedCommand, path: [String]) throws(UsageError) {
        if option.valueIsOptional {
            parsed.values[option.long] = inline ?? ""
            return
        }
        if option.isFlag {
            guard inline == nil else {
                throw UsageError(message: "option '--\(option.long)' takes no value", commandPath: path)
            }
            parsed.flags.insert(option.long)
            return
        }
        if let inline {
            parsed.values[option.long] = inline
        } else if case .word(let value)? = tokens.first {
            tokens.removeFirst()
            parsed.values[option.long] = value
        } else {
            throw UsageError(message: "option '--\(option.long)' needs a value (\(option.valueName ?? "VALUE"))", commandPath: path)
        }
    }

    private func validate(_ parsed: ParsedCommand, against node: CommandSpec) throws(UsageError) {
        if node.run == nil {
            let names = node.subcommands.map(\.name).joined(separator: ", ")
            let prefix = parsed.path.isEmpty ? "a command is needed" : "'\(parsed.path.joined(separator: " "))' needs a subcommand"
            throw UsageError(message: "\(prefix) (one of: \(names))", commandPath: parsed.path)
        }
        let required = node.arguments.filter { !$0.isOptional }.count
        if parsed.arguments.count < required {
            let missing = node.arguments[parsed.arguments.count]
            throw UsageError(message: "missing argument \(missing.name)", commandPath: parsed.path)
        }
        if parsed.arguments.count > node.arguments.count, node.arguments.last?.isRepeated != true {
            throw UsageError(message: "unexpected argument '\(parsed.arguments[node.arguments.count])'", commandPath: parsed.path)
        }
        let specs = node.arguments + Array(repeating: node.arguments.last, count: max(0, parsed.arguments.count - node.arguments.count)).compactMap { $0 }
        for (value, spec) in zip(parsed.arguments, specs) {
            if let problem = spec.validate?(value) {
                throw UsageError(message: "\(spec.name): \(problem)", commandPath: parsed.path)
            }
        }
    }
}
