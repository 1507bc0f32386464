import Testing
@testable import AgentCLI

private let parser = CommandParser(root: AgentControl.root)

private func run(_ arguments: [String]) throws -> ParsedCommand {
    guard case .run(let parsed) = try parser.parse(arguments) else {
        Issue.record("expected a command to run for \(arguments)")
        return ParsedCommand(path: [], flags: [], values: [:], arguments: [], passthrough: [])
    }
    return parsed
}

@Test func globalOptionsWorkBeforeAndAfterTheCommand() throws {
    let before = try run(["--socket", "/tmp/s.sock", "status", "--json"])
    #expect(before.path == ["status"])
    #expect(before.value("socket") == "/tmp/s.sock")
    #expect(before.flag("json"))
    let after = try run(["status", "--socket=/tmp/t.sock"])
    #expect(after.value("socket") == "/tmp/t.sock")
}

@Test func checkTakesAnOptionalDirectory() throws {
    #expect(try run(["check"]).arguments == [])
    #expect(try run(["check", "/etc/agentd"]).arguments == ["/etc/agentd"])
}

@Test func anUnknownCommandIsAUsageErrorListingTheCommands() {
    #expect {
        _ = try parser.parse(["frobnicate"])
    } throws: { error in
        guard let usage = error as? UsageError else { return false }
        return usage.message.contains("unknown command 'frobnicate'") && usage.message.contains("status")
    }
}

@Test func anUnknownOptionIsAUsageError() {
    #expect(throws: UsageError.self) { _ = try parser.parse(["status", "--frob"]) }
}

@Test func anOptionMissingItsValueSaysWhichValue() {
    #expect {
        _ = try parser.parse(["status", "--socket"])
    } throws: { error in
        (error as? UsageError)?.message == "option '--socket' needs a value (PATH)"
    }
}

@Test func tooManyArgumentsIsAUsageError() {
    #expect(throws: UsageError.self) { _ = try parser.parse(["check", "a", "b"]) }
}

@Test func noCommandAtAllAsksForOne() {
    #expect {
        _ = try parser.parse([])
    } throws: { error in
        (error as? UsageError)?.message.hasPrefix("a command is needed") == true
    }
}

@Test func helpIsAvailableOnEveryCommandAndNamesItsExample() throws {
    for command in AgentControl.root.subcommands {
        let outcome = try parser.parse([command.name, "--help"])
        #expect(outcome == .help(commandPath: [command.name]))
        let text = AgentControl.help(for: [command.name], parser: parser)
        #expect(text.contains("Usage: agentctl \(command.name)"))
        #expect(text.contains("Examples:"))
        #expect(text.contains("--socket PATH"))
    }
}

@Test func versionIsAGlobalFlag() throws {
    #expect(try parser.parse(["--version"]) == .version)
}

@Test func wordsAfterDoubleDashAreRefusedWhereNotAccepted() {
    #expect(throws: UsageError.self) { _ = try parser.parse(["status", "--", "x"]) }
}

@Test func tablesPadColumnsAndCutTheLastToTheWidth() {
    let table = Table(headers: ["ID", "STATE"], rows: [["local.a", "registered"], ["b", String(repeating: "x", count: 50)]])
    let lines = table.render(width: 30).split(separator: "\n")
    #expect(lines[0] == "ID       STATE")
    #expect(lines[1] == "local.a  registered")
    #expect(lines[2].count == 30)
    #expect(lines[2].hasSuffix("…"))
}

@Test func humanTimeReadsLikePeopleSpeak() {
    #expect(HumanTime.span(seconds: 42) == "42 s")
    #expect(HumanTime.span(seconds: 240) == "4 min")
    #expect(HumanTime.span(seconds: 7500) == "2 h 5 min")
    #expect(HumanTime.span(seconds: 3 * 86_400) == "3 d")
}
