// SPDX-License-Identifier: Apache-2.0
/// A node of agentctl's command tree. Parsing, validation and `--help` are all generated from
/// these, so a command's help cannot drift from what it accepts.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var examples: [String]
    public var options: [OptionSpec]
    public var arguments: [ArgumentSpec]
    public var subcommands: [CommandSpec]
    /// Whether words after `--` are accepted.
    public var acceptsPassthrough: Bool
    public var run: (@Sendable (ParsedCommand, CommandContext) throws -> Int32)?

    public init(name: String, abstract: String, discussion: String = "", examples: [String] = [],
                options: [OptionSpec] = [], arguments: [ArgumentSpec] = [],
                subcommands: [CommandSpec] = [], acceptsPassthrough: Bool = false,
                run: (@Sendable (ParsedCommand, CommandContext) throws -> Int32)? = nil) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
        self.acceptsPassthrough = acceptsPassthrough
        self.run = run
    }

    func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

/// An option: a flag (`--json`) or one taking a value (`--socket PATH`).
public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    /// Name of the value shown in help (`PATH`); nil for a flag.
    public var valueName: String?
    public var help: String
    /// `--requires-network[=unmetered]`: a value only when written with `=`; alone it is a
    /// flag with the empty value (a following word is never taken as its value).
    public var valueIsOptional: Bool

    public init(long: String, short: Character? = nil, valueName: String? = nil, help: String,
                valueIsOptional: Bool = false) {
        self.valueIsOptional = valueIsOptional
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
    }

    public var isFlag: Bool { valueName == nil }
}

/// A positional argument.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var isOptional: Bool
    /// The last argument may be given several times (`convert FILE…`).
    public var isRepeated: Bool
    /// Validates and may explain what would be valid; nil when fine.
    public var validate: (@Sendable (String) -> String?)?

    public init(name: String, help: String, isOptional: Bool = false, isRepeated: Bool = false,
                validate: (@Sendable (String) -> String?)? = nil) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeated = isRepeated
        self.validate = validate
    }
}
