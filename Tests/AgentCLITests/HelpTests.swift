// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCLI

/// `--help` everywhere: every node of the command tree, nested ones included, has help with a
/// usage line, its options and at least one example — and every example is a valid command line.
@Suite struct HelpTests {
    private let parser = CommandParser(root: AgentControl.root)

    /// Every command path in the tree: `[]`, `["status"]`, …, `["simulate", "launch"]`.
    private static func paths(_ node: CommandSpec, prefix: [String] = []) -> [[String]] {
        [prefix] + node.subcommands.flatMap { paths($0, prefix: prefix + [$0.name]) }
    }

    private static let allPaths = paths(AgentControl.root)

    @Test func theTreeHasTheNestedCommands() {
        #expect(Self.allPaths.contains(["simulate", "launch"]))
        #expect(Self.allPaths.contains(["simulate", "expire"]))
        #expect(Self.allPaths.contains(["watch"]))
    }

    @Test(arguments: allPaths)
    func everyCommandHasHelpWithAnExample(path: [String]) throws {
        for flag in ["--help", "-h"] {
            #expect(try parser.parse(path + [flag]) == .help(commandPath: path))
        }
        let text = AgentControl.help(for: path, parser: parser)
        let command = (["agentctl"] + path).joined(separator: " ")
        #expect(text.contains("Usage: \(command)"))
        #expect(text.contains("Examples:\n  \(command)"), "help of '\(command)' needs an example of itself")
        #expect(text.contains("-h, --help"))
        if !path.isEmpty {
            #expect(text.contains("--socket PATH"), "the global --socket option is listed for '\(command)'")
        }
    }

    @Test(arguments: allPaths)
    func everyExampleParses(path: [String]) throws {
        let node = try #require(parser.node(at: path))
        for example in node.examples {
            // Shell around the command (`| jq …`, `> file`) is not agentctl's.
            let command = example.split(separator: "|")[0].split(separator: ">")[0]
            let words = command.split(separator: " ").map(String.init)
            #expect(words.first == "agentctl")
            #expect(throws: Never.self, "example '\(example)'") { _ = try parser.parse(Array(words.dropFirst())) }
        }
    }

    @Test func helpAfterAnUnknownSubcommandStillHelps() throws {
        #expect(try parser.parse(["simulate", "--help"]) == .help(commandPath: ["simulate"]))
    }

    @Test func versionIsPrintedByTheRootOnly() throws {
        #expect(try parser.parse(["--version"]) == .version)
        #expect(throws: UsageError.self) { _ = try parser.parse(["status", "--version"]) }
    }
}
