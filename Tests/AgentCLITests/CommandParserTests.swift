// SPDX-License-Identifier: Apache-2.0
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

/// Issue 29 item 4: habits from systemctl and journalctl were usage errors.
@Test func noPagerIsAcceptedAndDashNIsTheLimit() throws {
    let status = try run(["--no-pager", "status"])
    #expect(status.path == ["status"])
    #expect(try run(["history", "--no-pager"]).path == ["history"])
    let history = try run(["history", "local.tidy-tmp", "-n", "5"])
    #expect(history.value("limit") == "5")
    #expect(history.arguments == ["local.tidy-tmp"])
}

@Test func watchTakesAnIntervalAndACount() throws {
    let parsed = try run(["watch", "--interval", "0.5", "--count", "3"])
    #expect(parsed.path == ["watch"])
    #expect(parsed.value("interval") == "0.5")
    #expect(try WatchCommand.Options(parsed).intervalMilliseconds == 500)
    #expect(try WatchCommand.Options(parsed).count == 3)
    #expect(throws: UsageError.self) { _ = try WatchCommand.Options(try run(["watch", "--interval", "0.01"])) }
    #expect(throws: UsageError.self) { _ = try WatchCommand.Options(try run(["watch", "--count", "0"])) }
}

@Test func lowpowerTakesOnOffOrAuto() throws {
    for mode in ["on", "off", "auto"] {
        let parsed = try run(["lowpower", mode])
        #expect(parsed.path == ["lowpower"])
        #expect(parsed.arguments == [mode])
    }
    #expect {
        _ = try parser.parse(["lowpower", "maybe"])
    } throws: { error in
        guard let usage = error as? UsageError else { return false }
        return usage.message == "on|off|auto: \"maybe\" is not a mode (on, off, auto)" && usage.commandPath == ["lowpower"]
    }
    #expect {
        _ = try parser.parse(["lowpower"])
    } throws: { error in
        (error as? UsageError)?.message == "missing argument on|off|auto"
    }
}

@Test func resourcesTakesJSON() throws {
    #expect(try run(["resources", "--json"]).flag("json"))
    #expect(throws: UsageError.self) { _ = try parser.parse(["resources", "gpu"]) }
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

@Test func versionIsAGlobalFlag() throws {
    #expect(try parser.parse(["--version"]) == .version)
}

@Test func wordsAfterDoubleDashAreRefusedWhereNotAccepted() {
    #expect(throws: UsageError.self) { _ = try parser.parse(["status", "--", "x"]) }
}

private func usageMessage(_ arguments: [String]) -> String {
    do {
        _ = try parser.parse(arguments)
        return ""
    } catch {
        return error.message
    }
}

@Test func helpNamesACommandOrSubcommand() throws {
    #expect(try parser.parse(["help"]) == .help(commandPath: []))
    #expect(try parser.parse(["help", "submit"]) == .help(commandPath: ["submit"]))
    #expect(try parser.parse(["help", "simulate", "launch"]) == .help(commandPath: ["simulate", "launch"]))
    #expect(usageMessage(["help", "sumbit"]).contains("did you mean submit?"))
}

@Test func aMisspeltCommandOrOptionGetsADidYouMean() {
    #expect(usageMessage(["statsu"]).contains("did you mean status or stats?"))
    #expect(usageMessage(["histroy"]).contains("did you mean history?"))
    #expect(usageMessage(["status", "--jsno"]).contains("did you mean --json?"))
    // Nothing close: the list of commands, no guess.
    #expect(usageMessage(["frobnicate"]).contains("expected one of:"))
}
