import AgentProtocol
import Testing
@testable import AgentCLI

/// `agentctl watch` frames, drawn from fixed answers at fixed sizes (Tests/Golden/render/watch-*).
@Suite struct WatchViewTests {
    private func frame(_ snapshot: WatchView.Snapshot, width: Int, height: Int?) -> String {
        WatchView.lines(snapshot, width: width, height: height, clock: Fixture.clock, footer: "Ctrl-C to quit · every 1 s")
            .map { $0.rendered(.plain) }.joined(separator: "\n")
    }

    @Test func aBusyAgentOnAHundredColumnTerminal() {
        GoldenFile.expect(frame(.status(Fixture.status(), raw: nil), width: 99, height: 30), matches: "render/watch-100x30.txt")
    }

    @Test func aSmallTerminalCutsLinesAndSaysWhatIsHidden() {
        let text = frame(.status(Fixture.status(), raw: nil), width: 59, height: 12)
        GoldenFile.expect(text, matches: "render/watch-60x12.txt")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 12)
        #expect(lines.allSatisfy { DisplayText.width(String($0)) <= 59 })
        #expect(lines.last?.hasPrefix("… ") == true)
    }

    @Test func anAgentThatStoppedAnsweringIsRetried() {
        let text = frame(.unreachable(socketPath: "/run/agentd/agentd.sock", lastAnswer: Fixture.now - 12), width: 99, height: 30)
        GoldenFile.expect(text, matches: "render/watch-unreachable.txt")
        #expect(text.hasPrefix("agentd is not answering at /run/agentd/agentd.sock (retrying…)"))
    }

    @Test func progressBarsFollowTheTerminalWidth() {
        let wide = frame(.status(Fixture.status(), raw: nil), width: 159, height: nil)
        let narrow = frame(.status(Fixture.status(), raw: nil), width: 59, height: nil)
        #expect(wide.contains("[################------------------------] 42%"))
        #expect(narrow.contains("[#######------------] 42%"))
    }

    @Test func thePowerLineShowsWhateverTheStatusReports() throws {
        let idle = frame(.status(Fixture.status(running: [], pending: []), raw: nil), width: 99, height: nil)
        #expect(idle.contains("power: not reported by agentd 0.1.0"))
        let raw = try #require(JSONValue.parse(Array(#"{"version":"0.2.0","power":"ac","lowPower":false,"thermal":{"state":"fair","zone":"x86_pkg_temp"}}"#.utf8)))
        let reported = frame(.status(Fixture.status(running: [], pending: []), raw: raw), width: 99, height: nil)
        #expect(reported.contains("power: ac · low power: no · thermal: state fair, zone x86_pkg_temp"))
    }

    @Test func colourIsAppliedOnlyAfterCutting() {
        let lines = WatchView.lines(.status(Fixture.status(), raw: nil), width: 40, height: nil, clock: Fixture.clock, footer: nil)
        for line in lines {
            #expect(DisplayText.width(stripEscapes(line.rendered(Style(enabled: true)))) <= 40)
        }
    }

    @Test func plainSnapshotsHaveNoTrailingBlanks() {
        let text = frame(.status(Fixture.status(), raw: nil), width: 99, height: nil)
        for line in text.split(separator: "\n") {
            #expect(line.last != " ", "\(line)")
        }
    }

    @Test func textFromPluginsCannotSendEscapeSequences() {
        var run = Fixture.running[0]
        run.title = "evil\u{1B}[2Jtitle"
        run.subtitle = "bell\u{07}"
        let text = frame(.status(Fixture.status(running: [run], pending: []), raw: nil), width: 99, height: nil)
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("\u{07}"))
        #expect(text.contains("evil?[2Jtitle"))
    }

    @Test func intervalsReadAsSeconds() {
        #expect(WatchCommand.seconds(1000) == "1 s")
        #expect(WatchCommand.seconds(500) == "0.5 s")
    }
}
