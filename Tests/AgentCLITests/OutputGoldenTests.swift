import AgentCore
import AgentProtocol
import Testing
@testable import AgentCLI

/// What people see, at a fixed width (`COLUMNS=80`, not a terminal) and a fixed clock, compared
/// with golden files under Tests/Golden/render/. `UPDATE_GOLDEN=1 swift test` rewrites them.
@Suite struct TableOutputGoldenTests {
    @Test func statusWithRunningAndWaitingWorkAndConfigProblems() {
        GoldenFile.expect(StatusCommand.render(Fixture.status(), context: Fixture.context()), matches: "render/status-80.txt")
    }

    @Test func statusOfAnIdleAgentWithACleanConfig() {
        let status = Fixture.status(running: [], pending: [], diagnostics: [], stateError: nil)
        GoldenFile.expect(StatusCommand.render(status, context: Fixture.context()), matches: "render/status-idle-80.txt")
    }

    @Test func statusShowsPolicyInputsTheAgentReportsWithoutKnowingThemByName() throws {
        let raw = try #require(JSONValue.parse(Array(#"{"power":"battery","battery":{"level":15,"status":"discharging"},"thermal":"fair"}"#.utf8)))
        let text = StatusCommand.render(Fixture.status(running: [], pending: []), raw: raw, context: Fixture.context())
        #expect(text.contains("policy:   power: battery · battery: level 15, status discharging · thermal: fair"))
    }

    @Test func statusWithAStateProblem() {
        let status = Fixture.status(running: [], pending: [], diagnostics: [],
                                    stateError: "cannot open /var/lib/agentd/state.db: disk I/O error")
        #expect(StatusCommand.render(status, context: Fixture.context()).contains("state error: cannot open /var/lib/agentd/state.db: disk I/O error"))
    }

    @Test func list() {
        GoldenFile.expect(ListCommand.render(Fixture.jobs, context: Fixture.context()), matches: "render/list-80.txt")
    }

    @Test func listWithNoJobsSaysWhereToPutOne() {
        #expect(ListCommand.render([], context: Fixture.context()).contains("jobs.d/"))
    }

    @Test func history() {
        GoldenFile.expect(RunCommands.render(Fixture.runs, context: Fixture.context()), matches: "render/history-80.txt")
    }

    @Test func historyWithNoRunsSaysHowToStartOne() {
        #expect(RunCommands.render([], context: Fixture.context()) == "No runs yet (agentctl simulate launch ID starts one now).")
    }

    @Test func check() {
        GoldenFile.expect(CheckCommand.render(Fixture.checkReport, style: .plain), matches: "render/check.txt")
    }

    @Test func everyTableLineFitsEightyColumns() {
        let context = Fixture.context()
        let outputs = [StatusCommand.render(Fixture.status(), context: context),
                       ListCommand.render(Fixture.jobs, context: context),
                       RunCommands.render(Fixture.runs, context: context)]
        for output in outputs {
            for line in output.split(separator: "\n") where !line.contains(".job:") && !line.hasPrefix("Config problems") {
                #expect(DisplayText.width(String(line)) <= 80, "\(line)")
            }
        }
    }

    @Test func colourChangesNoCharacterPeopleSee() {
        let plain = Fixture.context()
        let coloured = Fixture.context(style: Style(enabled: true))
        let pairs = [(StatusCommand.render(Fixture.status(), context: plain), StatusCommand.render(Fixture.status(), context: coloured)),
                     (ListCommand.render(Fixture.jobs, context: plain), ListCommand.render(Fixture.jobs, context: coloured)),
                     (RunCommands.render(Fixture.runs, context: plain), RunCommands.render(Fixture.runs, context: coloured)),
                     (CheckCommand.render(Fixture.checkReport, style: .plain), CheckCommand.render(Fixture.checkReport, style: Style(enabled: true)))]
        for (withoutColour, withColour) in pairs {
            #expect(withColour != withoutColour)
            #expect(stripEscapes(withColour) == withoutColour)
        }
    }

    @Test func coloursFollowMeaning() {
        let coloured = Fixture.context(width: nil, style: Style(enabled: true))
        let history = RunCommands.render(Fixture.runs, context: coloured)
        #expect(history.contains("\u{1B}[32msuccess\u{1B}[0m"))
        #expect(history.contains("\u{1B}[31mfailure(exit 3)\u{1B}[0m"))
        #expect(history.contains("\u{1B}[33mexpired(no-progress)\u{1B}[0m"))
        let list = ListCommand.render(Fixture.jobs, context: coloured)
        #expect(list.contains("\u{1B}[32mregistered\u{1B}[0m"))
        #expect(list.contains("\u{1B}[31mnot-permitted"))
        let status = StatusCommand.render(Fixture.status(), context: coloured)
        #expect(status.contains("\u{1B}[36mlocal.photos.export\u{1B}[0m"))
        #expect(status.contains("\u{1B}[33mexpiring\u{1B}[0m"))
    }
}

/// `--json` shapes: every field of every answer, fully populated, pinned in Tests/Golden/json/.
/// A renamed or removed field changes the text and fails here (the integration tests pin the
/// same shapes as a real agentd sends them).
@Suite struct JSONShapeGoldenTests {
    @Test func status() throws {
        var status = Fixture.status(stateError: "cannot open /var/lib/agentd/state.db: disk I/O error")
        status.running[0].statusText = "uploading"
        GoldenFile.expect(try MessageCoding.encodePretty(status), matches: "json/status.json")
    }

    @Test func list() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(Fixture.jobs), matches: "json/list.json")
    }

    @Test func history() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(Fixture.runs), matches: "json/history.json")
    }

    @Test func check() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(Fixture.checkReport), matches: "json/check.json")
    }
}

/// Removes SGR colour sequences.
func stripEscapes(_ text: String) -> String {
    var result = ""
    var inEscape = false
    for character in text {
        if inEscape {
            if character.isLetter { inEscape = false }
        } else if character == "\u{1B}" {
            inEscape = true
        } else {
            result.append(character)
        }
    }
    return result
}
