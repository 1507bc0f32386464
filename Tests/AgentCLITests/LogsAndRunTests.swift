// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Testing
@testable import AgentCLI

/// Issue 29 items 3 and 4: `logs`, `run`, `pending ID`, `history --since/--until` as parsed and
/// as people read them (the real agent's side is in the integration tests).
@Suite struct LogsAndRunTests {
    private let parser = CommandParser(root: AgentControl.root)

    private func parse(_ arguments: [String]) throws -> ParsedCommand {
        guard case .run(let parsed) = try parser.parse(arguments) else {
            Issue.record("expected a command to run for \(arguments)")
            return ParsedCommand(path: [], flags: [], values: [:], arguments: [], passthrough: [])
        }
        return parsed
    }

    /// Runs as `logs` answers them: oldest first, with the lines they kept.
    static let runs: [RunRecord] = {
        let failed = Fixture.runs[3]  // r000039 local.backup, failure(exit 3)
        var earlier = failed
        earlier.runID = "r000035"
        earlier.startedAt -= 86_400_000
        earlier.endedAt = earlier.startedAt + 4_000
        earlier.stopReason = "success"
        earlier.logTail = ["backed up 5 directories", "done"]
        var live = Fixture.runs[0]  // r000044, live
        live.identifier = "local.backup"
        live.logTail = ["copying /home", "warning: \u{1B}[31mred\u{1B}[0m text"]
        return [earlier, failed, live]
    }()

    @Test func logsTakesDashNDashFAndAnIdentifierOrARun() throws {
        let parsed = try parse(["logs", "local.backup", "-n", "20", "-f", "--json"])
        #expect(parsed.path == ["logs"])
        #expect(parsed.value("lines") == "20")
        #expect(parsed.flag("follow"))
        #expect(parsed.flag("json"))
        #expect(parsed.arguments == ["local.backup"])
        #expect(try parse(["logs", "r000042"]).arguments == ["r000042"])
        #expect(throws: UsageError.self) { _ = try parser.parse(["logs"]) }
        #expect(throws: UsageError.self) { _ = try parser.parse(["logs", "a", "b"]) }
        let context = Fixture.context()
        let zero = try parse(["logs", "local.backup", "-n", "0"])
        #expect(throws: UsageError.self) { _ = try LogsCommand.spec.run?(zero, context) }
    }

    @Test func runAndPendingTakeAnIdentifier() throws {
        let run = try parse(["run", "local.backup"])
        #expect(run.path == ["run"])
        #expect(run.arguments == ["local.backup"])
        #expect(throws: UsageError.self) { _ = try parser.parse(["run"]) }
        #expect(try parse(["pending", "local.backup"]).arguments == ["local.backup"])
        #expect(try parse(["pending"]).arguments.isEmpty)
    }

    /// `--since -2h` as journalctl reads it: a dash and a digit is a relative time, not options.
    @Test func aNegativeSpanIsAWordNotOptions() throws {
        let parsed = try parse(["history", "--since", "-2h", "--until", "-30min"])
        #expect(parsed.value("since") == "-2h")
        #expect(parsed.value("until") == "-30min")
        #expect(Token.tokenize(["-2h", "-n", "-v5"]) == [.word("-2h"), .short("n"), .cluster("v5")])
    }

    /// `-n1`, as journalctl, head and tail take it: a letter that takes a value takes the rest of
    /// the word, after any flags before it.
    @Test func aShortOptionTakesItsValueFromTheRestOfTheWord() throws {
        #expect(try parse(["history", "-n1"]).value("limit") == "1")
        let both = try parse(["history", "-vn12"])
        #expect(both.value("limit") == "12")
        #expect(both.flag("verbose"))
        #expect(try parse(["logs", "local.backup", "-n5"]).value("lines") == "5")
        #expect(try parse(["history", "-vn", "3"]).value("limit") == "3")
        #expect(throws: UsageError.self) { try parse(["history", "-vq"]) }
    }

    @Test func anEarliestBeginThatIsPastSaysSo() throws {
        let now = Double(Fixture.now)
        #expect {
            _ = try RequestCommands.requestOptions(try parse(["request", "local.x", "--earliest", "2026-11-01 08:00"]), now: now)
        } throws: { error in
            (error as? UsageError)?.message.hasPrefix("--earliest: \"2026-11-01 08:00\" is past and does not come again") == true
        }
        #expect {
            _ = try RequestCommands.requestOptions(try parse(["request", "local.x", "--earliest", "soonish"]), now: now)
        } throws: { error in
            (error as? UsageError)?.message.hasPrefix("--earliest: \"soonish\" is neither +SPAN") == true
        }
    }

    /// systemd.time(7)'s timestamps, at the fixture's clock (Mon 2026-11-30 14:30 at UTC+01:00).
    @Test func sinceAndUntilTakeSystemdTimestamps() throws {
        let context = Fixture.context()
        func since(_ text: String) throws -> Int64? {
            try StartRange.parse(since: text, until: nil, context: context, command: ["history"]).since
        }
        let now = Fixture.now
        let midnight = now - (14 * 3600 + 30 * 60)  // 00:00 local
        #expect(try since("today") == midnight * 1000)
        #expect(try since("yesterday") == (midnight - 86_400) * 1000)
        #expect(try since("-2h") == (now - 7200) * 1000)
        #expect(try since("2h ago") == (now - 7200) * 1000)
        // Spans with spaces, as systemd-analyze timestamp takes them.
        #expect(try since("2 min ago") == (now - 120) * 1000)
        #expect(try since("1h 30min ago") == (now - 5400) * 1000)
        #expect(try since("-2 min") == (now - 120) * 1000)
        #expect(try since("+1h 30min") == (now + 5400) * 1000)
        #expect(try since("1h 30min left") == (now + 5400) * 1000)
        #expect(try since("2026-11-30 10:00") == (midnight + 10 * 3600) * 1000)
        #expect(try since("2026-11-30 10:00 UTC") == (midnight + 11 * 3600) * 1000)
        #expect(try since("@1700000000") == 1_700_000_000_000)
        #expect(try since("now") == now * 1000)
        // A weekday must be the date's, as systemd-analyze timestamp holds it.
        #expect(try since("Mon 2026-11-30 10:00") == (midnight + 10 * 3600) * 1000)
        #expect(try since("monday 2026-11-30 10:00") == (midnight + 10 * 3600) * 1000)
        #expect(try since("Mon 10:00") == (midnight + 10 * 3600) * 1000, "today is a Monday")
        for wrong in ["Tue 2026-11-30 10:00", "Tue 10:00", "Foo 2026-11-30", "Mo 2026-11-30"] {
            #expect(throws: UsageError.self, "\(wrong)") { try since(wrong) }
        }
        let range = try StartRange.parse(since: "yesterday", until: "today", context: context, command: ["history"])
        #expect(range == StartRange(since: (midnight - 86_400) * 1000, until: midnight * 1000))
        #expect {
            _ = try StartRange.parse(since: "soonish", until: nil, context: context, command: ["history"])
        } throws: { error in
            (error as? UsageError)?.message.hasPrefix("--since: \"soonish\" is not a time (today, yesterday, -2h") == true
        }
        #expect {
            _ = try StartRange.parse(since: "today", until: "yesterday", context: context, command: ["history"])
        } throws: { error in
            (error as? UsageError)?.message == "--since today is not before --until yesterday: no run can be in between"
        }
    }

    @Test func logsPrintEachRunUnderItsHeaderOldestFirst() {
        let text = LogsCommand.render(Self.runs, target: "local.backup", context: Fixture.context())
        GoldenFile.expect(text, matches: "render/logs-80.txt")
        #expect(!text.contains("\u{1B}"), "a plugin's escape sequences are shown, not obeyed")
        #expect(LogsCommand.render([], target: "local.backup", context: Fixture.context())
                == "-- No output lines kept for local.backup (agentctl history local.backup lists its runs) --")
    }

    @Test func followedEventsReadAsTheKeptLinesDo() {
        let context = Fixture.context()
        var started = AgentEvent(sequence: 7, time: Fixture.nowMs, type: .runStarted, identifier: "local.backup", runID: "r000045")
        started.reason = "manual"
        #expect(LogsFollower.text(started, context: context) == "-- r000045 local.backup, started Mon 2026-11-30 14:30:00 (manual) --")
        var output = AgentEvent(sequence: 8, time: Fixture.nowMs, type: .runOutput, identifier: "local.backup", runID: "r000045")
        output.lines = ["one", "two"]
        output.droppedLineCount = 3
        #expect(LogsFollower.text(output, context: context)
                == "r000045: (3 lines left out: the run wrote faster than one event carries)\nr000045: one\nr000045: two")
        var ended = AgentEvent(sequence: 9, time: Fixture.nowMs, type: .runEnded, identifier: "local.backup", runID: "r000045")
        ended.stopReason = "success"
        #expect(LogsFollower.text(ended, context: context) == "-- r000045 ended: success --")
        #expect(LogsFollower.text(AgentEvent(sequence: 10, time: 0, type: .runProgress), context: context) == nil)
        #expect(EventLine.what(output) == "output: one | two (3 lines left out)")
    }

    @Test func followingAJobShowsItsSubmissionsRunsAndNotAJobRegisteredBelowIt() {
        func event(_ type: EventKind, _ identifier: String, _ run: String, job: String? = nil) -> AgentEvent {
            var event = AgentEvent(sequence: 1, time: Fixture.nowMs, type: type, identifier: identifier, runID: run)
            event.job = job
            return event
        }
        var runs = LogsFollower.FollowedRuns(identifier: "local.export")
        runs.keep(["r000001"])
        let shown = [
            event(.runOutput, "local.export.earlier", "r000001"),  // a run the answer named
            event(.runStarted, "local.export.holidays", "r000002", job: "local.export"),
            event(.runOutput, "local.export.holidays", "r000002"),
            event(.runStarted, "local.export.raw", "r000003"),  // a job of its own below it
            event(.runOutput, "local.export.raw", "r000003"),
            event(.runStarted, "local.export.raw.x", "r000004", job: "local.export.raw"),
            event(.runOutput, "local.export", "r000005"),  // its own identifier, always
            event(.runEnded, "local.export.holidays", "r000002"),
        ].map { runs.take($0) }
        #expect(shown == [true, true, true, false, false, false, true, true])
        #expect(runs.runIDs == ["r000001"], "an ended run is forgotten")
    }

    /// Pages are read newest first and printed oldest first, until -n lines.
    @Test func logsReadPagesUntilTheLinesAskedFor() throws {
        var asked: [ControlRequest] = []
        let cursor = RunCursor(runID: RunID(39), startedAt: 1_796_111_000_000)
        let pages: [ControlAnswer] = [.logs([Self.runs[1], Self.runs[2]], nextCursor: cursor, sequence: 3),
                                      .logs([Self.runs[0]], nextCursor: nil, sequence: 3)]
        let runs = try LogsCommand.pages(target: "local.backup", limit: 10, context: Fixture.context()) { request in
            asked.append(request)
            return pages[asked.count - 1]
        }
        #expect(runs.map(\.runID) == ["r000035", "r000039", "r000044"])
        #expect(asked == [.logs(LogsQuery(target: "local.backup", limit: 10)),
                          .logs(LogsQuery(target: "local.backup", limit: 7, cursor: cursor))])
    }

    /// `history -v` and `explain`: a failed run's last lines; none for a success.
    @Test func aFailedRunShowsItsLastLines() {
        var failed = Self.runs[1]
        failed.logTail = (1...7).map { "line \($0)" }
        let lines = RunNotesView.failedOutput(failed, indent: "  ", width: 80)
        #expect(lines == ["  log:        … last 5 of 7 lines (agentctl logs r000039)",
                          "              line 3", "              line 4", "              line 5",
                          "              line 6", "              line 7"])
        #expect(RunNotesView.failedOutput(Self.runs[0], indent: "  ", width: 80).isEmpty, "a success shows none")
        #expect(RunNotesView.failedOutput(Self.runs[2], indent: "  ", width: 80).isEmpty, "a live run shows none")
    }

    /// A reader who may not see a job's details gets none of its output events (DESIGN §9).
    @Test func outputEventsAreDetailsOfTheirJob() {
        var output = AgentEvent(sequence: 8, time: Fixture.nowMs, type: .runOutput, identifier: "local.backup", runID: "r000044")
        output.lines = ["secret"]
        #expect(ReadRedaction(seesDetails: { _ in false }).apply(output) == nil)
        #expect(ReadRedaction(seesDetails: { _ in true }).apply(output)?.lines == ["secret"])
    }

    @Test func logsJSONShape() throws {
        var output = AgentEvent(sequence: 8, time: Fixture.nowMs, type: .runOutput, identifier: "local.backup", runID: "r000044")
        output.lines = ["copied 12 files"]
        output.droppedLineCount = 3
        let chunks = Self.runs.map(LogChunk.init(run:)) + [LogChunk(event: output)]
        GoldenFile.expect(try MessageCoding.encodePretty(chunks), matches: "json/logs.json")
    }
}
