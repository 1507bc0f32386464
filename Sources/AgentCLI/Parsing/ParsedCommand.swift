// SPDX-License-Identifier: Apache-2.0
/// The result of parsing: which command, with which options and arguments.
public struct ParsedCommand: Sendable, Equatable {
    /// Command names from the root, e.g. `["simulate", "launch"]`.
    public var path: [String]
    public var flags: Set<String>
    public var values: [String: String]
    public var arguments: [String]
    public var passthrough: [String]

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name] }
    public func argument(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }
}

/// Why a command line was refused; agentctl prints it with a pointer to `--help` and exits 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    /// The command whose help explains the fix.
    public var commandPath: [String]

    public var description: String { message }
}

/// What parsing produced: something to run, or help/version to print.
public enum ParseOutcome: Equatable {
    case run(ParsedCommand)
    case help(commandPath: [String])
    case version
}
