// SPDX-License-Identifier: Apache-2.0
import Foundation
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

    /// `man agentctl` is where a Debian administrator looks: each command has an entry (a `.TP`
    /// header naming it) in COMMANDS, as `--help` has.
    @Test func everyCommandHasAnEntryInTheManPage() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("packaging/man/agentctl.1").path
        let man = try String(contentsOfFile: path, encoding: .utf8)
        let section = man.components(separatedBy: ".SH COMMANDS").dropFirst().first?.components(separatedBy: "\n.SH ").first ?? ""
        let headers = section.components(separatedBy: ".TP\n").dropFirst().map { entry in
            // The header line without troff's markup: `.BR cancel\-request " \fIID\fR|"` → words.
            (entry.split(separator: "\n").first.map(String.init) ?? "")
                .replacingOccurrences(of: "\\-", with: "-")
                .replacingOccurrences(of: "\\\\f[BIRP]", with: " ", options: .regularExpression)
                .split { " \"|,[]".contains($0) }.map(String.init)
        }
        for command in AgentControl.root.subcommands.map(\.name) {
            #expect(headers.contains { $0.dropFirst().contains(command) || $0.first == command },
                    "agentctl.1 has no COMMANDS entry for \(command)")
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
