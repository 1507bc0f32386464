// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
@testable import AgentCLI

/// `agentctl watch` frames, drawn from fixed answers at fixed sizes (Tests/Golden/render/watch-*).
@Suite struct WatchViewTests {
    private func frame(_ snapshot: WatchView.Snapshot, width: Int, height: Int?,
                       finished: [WatchFinishedRuns.Run] = []) -> String {
        WatchView.lines(snapshot, width: width, height: height, clock: Fixture.clock, footer: "Ctrl-C to quit · every 1 s",
                        finished: finished)
            .map { $0.rendered(.plain) }.joined(separator: "\n")
    }

    /// DESIGN §8: the identifier column is never cut. An identifier longer than a narrow
    /// terminal is wrapped on lines of its own, and the other rows keep their kind and reason.
    @Test func aLongIdentifierIsWrappedNeverCutAndTheOtherRowsStayReadable() {
        let long = "local.this-is-a-really-quite-long-identifier.for-testing-the-watch-view"
        let pending = [PendingSummary(identifier: long, kind: .processing, waitingFor: "interval (earliest 14:05)"),
                       PendingSummary(identifier: "local.minute", kind: .refresh, waitingFor: "schedule (next 14:06)")]
        let text = frame(.status(Fixture.status(running: [], pending: pending)), width: 60, height: nil)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.allSatisfy { DisplayText.width($0) <= 60 }, "\(text)")
        #expect(lines.joined().replacingOccurrences(of: " ", with: "").contains(long), "wrapped whole: \(text)")
        #expect(lines.contains { $0.hasPrefix("  local.minute") && $0.contains("refresh") && $0.contains("schedule (next 14:06)") },
                "\(text)")
    }

    @Test func aBusyAgentOnAHundredColumnTerminal() {
        GoldenFile.expect(frame(.status(Fixture.status()), width: 99, height: 30), matches: "render/watch-100x30.txt")
    }

    @Test func aSmallTerminalCutsLinesAndSaysWhatIsHidden() {
        let text = frame(.status(Fixture.status()), width: 59, height: 12)
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
        // Running but silent (stopped, stuck): starting it is no advice.
        let silent = frame(.unreachable(socketPath: "/run/agentd/agentd.sock", lastAnswer: nil, silent: true), width: 120, height: 30)
        #expect(silent.contains("It takes connections but does not answer: stopped or stuck?") && !silent.contains("Start it"), "\(silent)")
    }

    @Test func progressBarsFollowTheTerminalWidth() {
        let wide = frame(.status(Fixture.status()), width: 159, height: nil)
        let narrow = frame(.status(Fixture.status()), width: 59, height: nil)
        #expect(wide.contains("[################------------------------] 42%"))
        #expect(narrow.contains("[#######------------] 42%"))
    }

    @Test func theInputsLinesComeFromTheMachineInputs() {
        let old = frame(.status(Fixture.status(running: [], pending: [], inputs: nil)), width: 99, height: nil)
        #expect(old.contains("inputs: not reported by agentd 0.1.0"))
        let onAC = frame(.status(Fixture.status(running: [], pending: [])), width: 99, height: nil)
        #expect(onAC.contains("power ac, battery 80 % (charging) · low power off (auto, platform_profile)"))
        #expect(!onAC.contains("sources"), "every source live: nothing to say")
    }

    @Test func onBatteryWithAPausedRunAndEveryWaitingReason() {
        let status = Fixture.status(running: Fixture.pausedRunning, pending: Fixture.conditionPending,
                                    diagnostics: [], inputs: Fixture.inputsOnBattery)
        let text = frame(.status(status), width: 99, height: 30)
        GoldenFile.expect(text, matches: "render/watch-battery-100x30.txt")
        #expect(text.contains("local.backup         r000050  interval · 10 min · paused: external power"))
        #expect(text.contains("battery low (15%)"))
    }

    @Test func sourcesNotLiveAreNamedAndColouredAsWarnings() {
        let status = Fixture.status(running: [], pending: [], diagnostics: [], inputs: Fixture.inputsThermalFair)
        let text = frame(.status(status), width: 79, height: nil)
        GoldenFile.expect(text, matches: "render/watch-thermal-80.txt")
        #expect(text.contains("sources thermal-netlink sampled (no thermal family) ·\n        power-profiles unavailable (no system bus)"))
        let wide = frame(.status(status), width: 159, height: nil)
        #expect(wide.contains("\nsources thermal-netlink sampled (no thermal family) · power-profiles unavailable (no system bus) · networkmanager unavailable (no system bus)\n"))
        #expect(wide.contains("metered no (no system bus)"))
        #expect(!wide.contains("uevent"), "live sources are left out of the live view")
        let coloured = WatchView.lines(.status(status), width: 79, height: nil, clock: Fixture.clock, footer: nil)
            .map { $0.rendered(Style(enabled: true)) }.joined(separator: "\n")
        #expect(coloured.contains("\u{1B}[33mthermal-netlink sampled (no thermal family)\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[33mfair — x86_pkg_temp 82 °C, 8 °C below passive\u{1B}[0m"))
        for line in text.split(separator: "\n") {
            #expect(DisplayText.width(String(line)) <= 79, "\(line)")
        }
    }

    @Test func colourIsAppliedOnlyAfterCutting() {
        let lines = WatchView.lines(.status(Fixture.status()), width: 40, height: nil, clock: Fixture.clock, footer: nil)
        for line in lines {
            #expect(DisplayText.width(stripEscapes(line.rendered(Style(enabled: true)))) <= 40)
        }
    }

    @Test func plainSnapshotsHaveNoTrailingBlanks() {
        let text = frame(.status(Fixture.status()), width: 99, height: nil)
        for line in text.split(separator: "\n") {
            #expect(line.last != " ", "\(line)")
        }
    }

    @Test func textFromPluginsCannotSendEscapeSequences() {
        var run = Fixture.running[0]
        run.title = "evil\u{1B}[2Jtitle"
        run.subtitle = "bell\u{07}"
        let text = frame(.status(Fixture.status(running: [run], pending: [])), width: 99, height: nil)
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("\u{07}"))
        #expect(text.contains("evil?[2Jtitle"))
    }

    @Test func intervalsReadAsSeconds() {
        #expect(WatchCommand.seconds(1000) == "1 s")
        #expect(WatchCommand.seconds(500) == "0.5 s")
    }

    static let finished = [
        WatchFinishedRuns.Run(identifier: "local.fetch", runID: "r000052", stopReason: "failure(exit 3)",
                              endedAt: Fixture.nowMs - 3_000, title: "Fetching feeds", status: "server said 503"),
        WatchFinishedRuns.Run(identifier: "com.example.export", runID: "r000049", stopReason: "success",
                              endedAt: Fixture.nowMs - 42_000, title: "Exporting Photos", status: "copying",
                              result: "/home/ana/Exports/holidays.zip"),
        WatchFinishedRuns.Run(identifier: "local.tidy", runID: "r000048", stopReason: "cancelled", endedAt: Fixture.nowMs - 50_000),
    ]

    @Test func runsThatEndedStayVisibleWithWhatTheySaid() {
        let text = frame(.status(Fixture.status()), width: 99, height: nil, finished: Self.finished)
        GoldenFile.expect(text, matches: "render/watch-finished-100.txt")
        #expect(text.contains("Finished (last 60 s)"))
        #expect(text.contains("    → /home/ana/Exports/holidays.zip"), "a success shows its RESULT=")
        #expect(text.contains("    server said 503"), "a failure its last STATUS=")
        #expect(!text.contains("copying"), "a success's STATUS= is not its result")
    }

    @Test func finishedRunsAreKeptAMinuteAtMostFiveNewestFirstWithTheirTitles() {
        var runs = WatchFinishedRuns()
        var started = AgentEvent(sequence: 1, time: Fixture.nowMs - 70_000, type: .runStarted, identifier: "local.a", runID: "r1")
        started.title = "First"
        runs.note(started)
        for number in 1...7 {
            var ended = AgentEvent(sequence: UInt64(number + 1), time: Fixture.nowMs - 70_000 + Int64(number) * 10_000,
                                   type: .runEnded, identifier: "local.a", runID: "r\(number)")
            ended.stopReason = "success"
            ended.result = "/tmp/\(number)"
            runs.note(ended)
        }
        #expect(runs.runs.map(\.runID) == ["r7", "r6", "r5", "r4", "r3"], "at most five, newest first")
        // r3 ended 40 s ago … r7 0 s ago: 25 s later r3 is 65 s old and gone.
        #expect(runs.visible(at: Fixture.nowMs).count == 5)
        #expect(runs.visible(at: Fixture.nowMs + 25_000).map(\.runID) == ["r7", "r6", "r5", "r4"])
        #expect(runs.visible(at: Fixture.nowMs + 61_000).isEmpty)
        var one = WatchFinishedRuns()
        one.note(started)
        var ended = AgentEvent(sequence: 9, time: Fixture.nowMs, type: .runEnded, identifier: "local.a", runID: "r1")
        ended.stopReason = "failure(exit 1)"
        one.note(ended)
        #expect(one.runs.first?.title == "First" && one.runs.first?.failed == true)
    }
}
