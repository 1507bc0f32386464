// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Foundation
import Testing

/// Issue 29 items 3 and 4 against a real agent: `logs` (kept lines and `-f`), `run`, what
/// `trigger` answers, did-you-mean in every verb, `history --since/--until`.
@Suite(.serialized) struct LogsAndRunIntegrationTests {
    /// A job whose plugin says why it started and fails, and one that writes to stderr only
    /// (stdout and stderr are two pipes: lines of both have no order to test).
    private static func failingJob(_ sandbox: Sandbox) throws {
        let plugin = try sandbox.script("fails", """
            echo "reason=$AGENTD_REASON"
            echo STATUS=fetching
            echo "curl: (22) The requested URL returned error: 503"
            for i in 1 2 3 4 5 6; do echo "retry $i"; done
            exit 3

            """)
        try sandbox.write("jobs.d/fails.job", "[Job]\nIdentifier=local.fails\nKind=processing\nExec=\(plugin)\n")
        let warns = try sandbox.script("warns", "echo 'disk almost full' >&2\necho 'giving up' >&2\nexit 1\n")
        try sandbox.write("jobs.d/warns.job", "[Job]\nIdentifier=local.warns\nKind=processing\nExec=\(warns)\n")
    }

    /// Starts a run with `agentctl run` and waits for its end in the agent's log.
    private static func runToEnd(_ agent: AgentProcess, _ id: String) throws -> String {
        let started = try agent.ctl("run", id)
        #expect(started.status == 0, "\(started.stderr)")
        let run = try #require(started.stdout.split(separator: " ").dropFirst(2).first.map(String.init))
        try agent.waitForLog("run \(run) of \(id) ended:")
        return run
    }

    @Test func logsShowTheKeptLinesOfEachRunOldestFirst() throws {
        let sandbox = try Sandbox()
        try Self.failingJob(sandbox)
        let agent = try AgentProcess(sandbox: sandbox)
        let first = try Self.runToEnd(agent, "local.fails")
        let second = try Self.runToEnd(agent, "local.fails")

        let logs = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath, "logs", "local.fails"],
                                  environment: ["COLUMNS": "80", "PATH": "/usr/bin:/bin"])
        #expect(logs.status == 0, "\(logs.stderr)")
        let lines = logs.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("-- \(first) local.fails, started ") == true, "\(logs.stdout)")
        #expect(lines.first?.hasSuffix(" (manual): failure(exit 3) after " + (lines.first?.components(separatedBy: "after ").last ?? "")) == true)
        #expect(lines.filter { $0.hasPrefix("-- ") }.count == 2)
        #expect(lines.contains("\(second): reason=manual"))
        #expect(lines.contains("\(first): curl: (22) The requested URL returned error: 503"))
        #expect(!logs.stdout.contains("STATUS="), "directives are not output lines")
        OutputGoldens.expect(OutputGoldens.normalisedText(logs.stdout, sandbox: sandbox,
                                                          volatile: OutputGoldens.timePatterns + [#"\w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"#]),
                             matches: "logs-80.txt")

        // -n: the last lines, across runs, newest run last.
        let last = try agent.ctl("logs", "local.fails", "-n", "2")
        #expect(last.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-- ") }
                == ["\(second): retry 5", "\(second): retry 6"], "\(last.stdout)")
        let one = try agent.ctl("logs", first, "-n", "1")
        #expect(one.stdout.hasSuffix("\n\(first): retry 6\n"), "\(one.stdout)")
        let json = try agent.ctl("logs", "local.fails", "--json")
        let chunks = try JSONDecoding.array(json.stdout)
        #expect(chunks.map { $0["runID"] as? String } == [first, second])
        #expect((chunks.first?["lines"] as? [String])?.count == 8)
        #expect(chunks.first?["stopReason"] as? String == "failure(exit 3)")

        // history -v and explain show a failed run's last lines.
        let history = try agent.ctl("history", "-v", "local.fails")
        #expect(history.stdout.contains("    log:        … last 5 of 8 lines (agentctl logs \(second))"), "\(history.stdout)")
        #expect(history.stdout.contains("                retry 6"))
        let explain = try agent.ctl("explain", "local.fails")
        #expect(explain.stdout.contains("Last run (\(second)) said:\n  status:     fetching\n  log:        … last 5 of 8 lines"), "\(explain.stdout)")

        let warns = try Self.runToEnd(agent, "local.warns")
        let stderr = try agent.ctl("logs", "local.warns")
        #expect(stderr.stdout.hasSuffix("\n\(warns): disk almost full\n\(warns): giving up\n"), "stderr lines are output lines: \(stderr.stdout)")

        let none = try agent.ctl("logs", "r009999")
        #expect(none.status == 1)
        #expect(none.stderr.contains("no run r009999 (agentctl history lists runs"), "\(none.stderr)")
    }

    /// `logs RUN -f`: the kept lines, then the live ones as the plugin writes them, then the end;
    /// it exits by itself when the run ends. The plugin waits on a FIFO the test writes to.
    @Test func logsFollowPrintsLiveLinesUntilTheRunEnds() throws {
        let sandbox = try Sandbox()
        let fifo = sandbox.root + "/go"
        let gate = try FIFOGate(fifo)
        let plugin = try sandbox.script("waits", "echo before\nread line < \(fifo)\necho \"after $line\"\necho done\n")
        try sandbox.write("jobs.d/waits.job", "[Job]\nIdentifier=local.waits\nKind=processing\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let started = try agent.ctl("run", "local.waits")
        let run = try #require(started.stdout.split(separator: " ").dropFirst(2).first.map(String.init))
        try agent.waitForLog("] before")

        let (follower, output) = try Self.follow(sandbox, "logs", run, "-f")
        defer { if follower.isRunning { follower.terminate() } }
        let deadline = { Date().addingTimeInterval(30) }
        #expect(output.firstLine(until: deadline()) { $0 == "\(run): before" } != nil, "the kept line first")
        // Only now does the plugin go on: every later line is a live one.
        gate.open("go")
        try #require(output.firstLine(until: deadline()) { $0 == "-- \(run) ended: success --" } != nil)
        follower.waitUntilExit()
        #expect(follower.terminationStatus == 0)
        let seen = output.lines.withLock { $0 }
        #expect(seen == ["-- \(run) local.waits, started \(seen.first?.components(separatedBy: "started ").last ?? "")",
                         "\(run): before", "\(run): after go", "\(run): done", "-- \(run) ended: success --"], "\(seen)")
    }

    /// `logs JOB -f` follows the runs of the job's submissions under dynamic identifiers, as
    /// `logs JOB` lists them, and not a job registered below it.
    @Test func followingAJobShowsItsSubmissionsLiveLinesAndNotAJobBelowIt() throws {
        let sandbox = try Sandbox()
        let gate = try FIFOGate(sandbox.root + "/go")
        // The job's own identifier runs through; a submission waits for the test's word.
        let exports = try sandbox.script("exports", "echo \"before $AGENTD_IDENTIFIER\"\n"
                                         + "[ \"$AGENTD_IDENTIFIER\" = local.export ] || read line < \(sandbox.root)/go\n"
                                         + "echo \"after $line\"\n")
        let raw = try sandbox.script("raw", "echo raw line\n")
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(exports)\n")
        try sandbox.write("jobs.d/raw.job", "[Job]\nIdentifier=local.export.raw\nKind=processing\nExec=\(raw)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("submit", "local.export", "--wait").status == 0)

        let (follower, output) = try Self.follow(sandbox, "logs", "local.export", "-f")
        defer { if follower.isRunning { follower.terminate() } }
        let deadline = { Date().addingTimeInterval(30) }
        // The kept lines come after the subscription: from here on nothing is missed.
        try #require(output.firstLine(until: deadline()) { $0 == "r000001: before local.export" } != nil)

        #expect(try agent.ctl("submit", "local.export.holidays").status == 0)
        let header = try #require(output.firstLine(until: deadline()) { $0.contains(" local.export.holidays, started ") })
        let run = try #require(header.line.split(separator: " ").dropFirst().first.map(String.init))
        #expect(output.firstLine(until: deadline()) { $0 == "\(run): before local.export.holidays" } != nil)
        #expect(try agent.ctl("run", "local.export.raw").status == 0)
        try agent.waitForLog("of local.export.raw ended: success")
        gate.open("go")
        #expect(output.firstLine(until: deadline()) { $0 == "-- \(run) ended: success --" } != nil)
        follower.terminate()
        follower.waitUntilExit()
        let seen = output.lines.withLock { $0 }
        #expect(seen.contains("\(run): after go"), "\(seen)")
        #expect(!seen.contains { $0.contains("raw") }, "a job registered below it keeps its runs: \(seen)")
    }

    /// `agentctl ARGS` against the sandbox's agent, running on, its output lines collected.
    static func follow(_ sandbox: Sandbox, _ arguments: String...) throws -> (Process, LogLines) {
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Binaries.agentctl)
        follower.arguments = ["--socket", sandbox.socketPath] + arguments
        let pipe = Pipe()
        follower.standardOutput = pipe
        try follower.run()
        let output = LogLines()
        output.follow(pipe)
        return (follower, output)
    }

    /// DESIGN §5: output events are merged per read and bounded, so a plugin writing 100,000
    /// lines as fast as it can costs a reading follower neither its stream nor a line unaccounted.
    @Test func aFloodingPluginCostsNoFollowerItsStream() throws {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("floods", "seq 1 100000\n")
        try sandbox.write("jobs.d/floods.job", "[Job]\nIdentifier=local.floods\nKind=processing\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let subscriber = try EventSubscriber(socket: sandbox.socketPath,
                                             filter: ["identifiers": ["local.floods"], "kinds": ["run-output", "run-ended"]])
        let everything = try EventSubscriber(socket: sandbox.socketPath, filter: ["identifiers": ["local.floods"]])
        #expect(try agent.ctl("run", "local.floods").status == 0)
        let events = try subscriber.events(until: { $0.type == "run-ended" || $0.type == "overflow" }, timeout: 120)
        #expect(!events.contains { $0.type == "overflow" })
        let output = events.filter { $0.type == "run-output" }
        let sent = output.reduce(0) { $0 + (($1["lines"] as? [String])?.count ?? 0) }
        let dropped = output.reduce(0) { $0 + ($1["droppedLineCount"] as? Int ?? 0) }
        #expect(sent + dropped == 100_000, "every line is sent or counted as left out")
        #expect(output.allSatisfy { (($0["lines"] as? [String])?.count ?? 0) <= 64 })
        #expect((output.last?["lines"] as? [String])?.last == "100000", "the newest line is kept")
        // A subscriber that did not name run-output gets none (it never asked for lines).
        let others = try everything.events(until: { $0.type == "run-ended" })
        #expect(!others.contains { $0.type == "run-output" })
    }

    @Test func runStartsARunNowWithReasonManual() throws {
        let sandbox = try Sandbox()
        try Self.failingJob(sandbox)
        let fifo = sandbox.root + "/hold"
        let gate = try FIFOGate(fifo)
        let holds = try sandbox.script("holds", "read line < \(fifo)\n")
        try sandbox.write("jobs.d/holds.job", "[Job]\nIdentifier=local.holds\nKind=processing\nExec=\(holds)\n")
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=continued\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let started = try agent.ctl("run", "local.fails")
        #expect(started.status == 0)
        #expect(started.stdout.hasPrefix("started run r000001 of local.fails (manual: policy bypassed"), "\(started.stdout)")
        try agent.waitForLog("run r000001 of local.fails ended:")
        let record = try #require(try JSONDecoding.array(try agent.ctl("history", "--json", "local.fails").stdout).first)
        #expect(record["reason"] as? String == "manual")
        #expect((record["logTail"] as? [String])?.first == "reason=manual", "AGENTD_REASON=manual")

        let continued = try agent.ctl("run", "local.feed")
        #expect(continued.status == 1)
        #expect(continued.stderr.contains("local.feed is a continued job: a person starts it with agentctl submit local.feed"), "\(continued.stderr)")
        #expect(try agent.ctl("run", "local.holds").status == 0)
        let busy = try agent.ctl("run", "local.holds")
        #expect(busy.status == 5)
        #expect(busy.stderr.contains("local.holds is already running as r000002 (wait for it, or agentctl cancel r000002)"), "\(busy.stderr)")
        gate.open("go")
        try agent.waitForLog("run r000002 of local.holds ended:")
    }

    /// Right after start a new interval job has just run: a trigger waits for TriggerSpacing=,
    /// and the answer says until when and why; with TriggerSpacing=0 it starts at once.
    @Test func triggerSaysWhenTheLaunchWillBeAndWhyNotSooner() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/feed.job", sandbox.jobFile("feed"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("run r000001 of local.feed ended:")
        let triggered = try agent.ctl("trigger", "local.feed")
        #expect(triggered.status == 0, "\(triggered.stderr)")
        let pending = try #require(try JSONDecoding.array(try agent.ctl("pending", "local.feed", "--json").stdout).first)
        #expect(pending["reason"] as? String == "trigger-spacing")
        let until = try #require(JSONInstant.milliseconds(pending["until"] as Any))
        var seconds = time_t(until / 1000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var nowSeconds = time(nil)
        var today = tm()
        localtime_r(&nowSeconds, &today)
        // A time on another day (a trigger in the quarter hour before midnight) names its weekday.
        let day = parts.tm_yday == today.tm_yday ? ""
            : ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][Int(parts.tm_wday)] + " "
        let clock = day + String(format: "%02d:%02d", parts.tm_hour, parts.tm_min)
        #expect(triggered.stdout.hasPrefix("triggered local.feed: it runs at \(clock) (in 15 min) at the earliest: TriggerSpacing= (15 min) counts from the job's last launch, at "),
                "\(triggered.stdout)")
        #expect(triggered.stdout.hasSuffix("(agentctl run local.feed runs it now)\n"))

        // Withdrawn, or the restart would find it overdue and spread it as catch-up.
        #expect(try agent.ctl("cancel-request", "local.feed").status == 0)
        agent.stop()
        try sandbox.write("agentd.conf", "[Agent]\nTriggerSpacing=0\n")
        let restarted = try AgentProcess(sandbox: sandbox)
        let now = try restarted.ctl("trigger", "local.feed")
        #expect(now.stdout == "triggered local.feed: started run r000002\n", "\(now.stdout)")
    }

    @Test func anUnknownIdentifierIsAnErrorWithDidYouMeanInEveryCommand() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/backup.job", sandbox.jobFile("backup", interval: "1d"))
        let agent = try AgentProcess(sandbox: sandbox)
        let hint = "agentctl: no job local.bakup; did you mean local.backup? (see agentctl list)\n"
        for command in [["trigger"], ["cancel"], ["cancel-request"], ["request"], ["submit"], ["enable"], ["disable"],
                        ["simulate", "launch"], ["simulate", "expire"], ["run-if-stale", "--max-age", "1h"],
                        ["pending"], ["stats"], ["logs"], ["run"], ["history"], ["explain"], ["events"]] {
            let result = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + command + ["local.bakup"])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr == hint, "\(command)")
            // A drop-in's or a local job's NAME typed without its local. prefix.
            let bare = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + command + ["backup"])
            #expect(bare.status != 0 && bare.stderr.contains("no job backup; did you mean local.backup?"),
                    "\(command): \(bare.stderr)")
        }
        #expect(try agent.ctl("pending", "local.backup").status == 0, "a known job that waits for nothing is no error")
        // A run id is no job: one that is not live ended; one past the latest run never started.
        try agent.waitForLog("run r000001 of local.backup ended")
        for command in [["cancel"], ["simulate", "expire"]] {
            let ended = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + command + ["r000001"])
            #expect(ended.status == 1, "\(command): \(ended.stderr)")
            #expect(ended.stderr.contains("r000001 is no live run (agentctl history shows how it ended)"), "\(command): \(ended.stderr)")
            let never = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + command + ["r000009"])
            #expect(never.status == 1, "\(command): \(never.stderr)")
            #expect(never.stderr.contains("no run r000009 has started (the latest is r000001); agentctl history lists runs"),
                    "\(command): \(never.stderr)")
        }
    }

    /// The agent filters by start time in its query: pages and cursors count only the runs shown.
    @Test func historySinceAndUntilAreFilteredInTheAgent() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/quick.job", "[Job]\nIdentifier=local.quick\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        for _ in 1...3 { _ = try Self.runToEnd(agent, "local.quick") }
        let runs = try JSONDecoding.array(try agent.ctl("history", "--json").stdout)
        let starts = try runs.map { try #require(JSONInstant.milliseconds($0["startedAt"] as Any)) }
        #expect(runs.map { $0["runID"] as? String } == ["r000003", "r000002", "r000001"])

        // Over the socket with millisecond instants: since the second run, one run per page.
        func page(_ cursor: String?) throws -> [String: Any] {
            let client = try ControlClient.connect(path: sandbox.socketPath)
            var request: [String: Any] = ["command": "history", "limit": 1, "omitLogTails": true,
                                          "since": JSONDecoding.rfc3339(milliseconds: starts[1])]
            if let cursor { request["cursor"] = cursor }
            try client.send(line: Array(try JSONSerialization.data(withJSONObject: request)))
            return try EventSubscriber.object(try client.readLine(timeout: .seconds(20)))
        }
        let first = try page(nil)
        #expect((first["runs"] as? [[String: Any]])?.map { $0["runID"] as? String } == ["r000003"])
        #expect(first["nextCursor"] as? String == "r000003@\(starts[0])", "the last run and its start")
        let second = try page(try #require(first["nextCursor"] as? String))
        #expect((second["runs"] as? [[String: Any]])?.map { $0["runID"] as? String } == ["r000002"])
        #expect(second["nextCursor"] == nil, "r000001 started before --since: no page follows")

        // A bare run id still continues after that run.
        let byRunID = try page("r000003")
        #expect((byRunID["runs"] as? [[String: Any]])?.map { $0["runID"] as? String } == ["r000002"])

        let recent = try agent.ctl("history", "--since", "-1h", "--until", "+1min")
        #expect(recent.stdout.contains("r000001") && recent.stdout.contains("r000003"), "\(recent.stdout)")
        let tomorrow = try agent.ctl("history", "--since", "tomorrow")
        #expect(tomorrow.status == 0)
        #expect(tomorrow.stdout == "No runs started in that time (agentctl history without --since/--until shows the newest).\n")
        let old = try agent.ctl("history", "--until", "@\(starts[2] / 1000)", "--json")
        #expect(try JSONDecoding.array(old.stdout).isEmpty, "none started before the first run's second")
        let bad = try agent.ctl("history", "--since", "soon")
        #expect(bad.status == 2)
    }

    /// Each job keeps only its newest runs: a page's last run may be pruned before the next page
    /// is asked for. The cursor carries that run's start, so paging goes on below it.
    @Test func historyPagesGoOnWhenThePreviousPagesLastRunWasPrunedMeanwhile() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/quick.job", "[Job]\nIdentifier=local.quick\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        let before = try AgentProcess(sandbox: sandbox)
        for _ in 1...3 { _ = try Self.runToEnd(before, "local.quick") }

        func page(_ cursor: String?) throws -> [String: Any] {
            let client = try ControlClient.connect(path: sandbox.socketPath)
            var request: [String: Any] = ["command": "history", "limit": 1]
            if let cursor { request["cursor"] = cursor }
            try client.send(line: Array(try JSONSerialization.data(withJSONObject: request)))
            return try EventSubscriber.object(try client.readLine(timeout: .seconds(20)))
        }
        func runIDs(_ answer: [String: Any]) -> [String?]? {
            (answer["runs"] as? [[String: Any]])?.map { $0["runID"] as? String }
        }
        let first = try page(nil)
        #expect(runIDs(first) == ["r000003"])
        let cursor = try #require(first["nextCursor"] as? String)

        // What the agent's pruner does to a job's oldest runs, done to this one by hand (the
        // agent holds state.db exclusively: stopped meanwhile, and the pages go on with the next).
        before.stop()
        let pruned = try runCommand("/usr/bin/sqlite3", [sandbox.stateDirectory + "/state.db",
                                                        "DELETE FROM runs WHERE run_id = 'r000003';"])
        #expect(pruned.status == 0, "sqlite3: \(pruned.stderr)")
        let agent = try AgentProcess(sandbox: sandbox)
        let second = try page(cursor)
        #expect(second["ok"] as? Bool == true, "\(second)")
        #expect(runIDs(second) == ["r000002"])
        let third = try page(try #require(second["nextCursor"] as? String))
        #expect(runIDs(third) == ["r000001"])
        #expect(third["nextCursor"] == nil)

        // A bare run id can only be placed while its run is kept: the error says what to pass.
        let gone = try page("r000003")
        let message = (gone["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("no run r000003 to continue after") == true, "\(gone)")
        let malformed = try page("r3;DROP")
        let refusal = (malformed["error"] as? [String: Any])?["message"] as? String
        #expect(refusal?.hasPrefix("history: \"cursor\" must be the nextCursor of the previous answer") == true, "\(malformed)")
        agent.stop()
    }
}

/// DESIGN §9 for the new verbs, with throwaway users: `logs` shows a reader the lines only of
/// jobs whose file they could read (or whose manifest names them), and `run` is for root, group
/// `agentd` and the manifest's `Users=`.
@Suite(.serialized) struct LogsAndRunAuthorityTests {
    private static let enabled = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/sbin/useradd")

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd: the peers are throwaway users"))
    func logsShowAReaderOnlyWhatTheJobFilesTheyCanReadWouldTell() throws {
        let sandbox = try Sandbox()
        let alice = try TestUser()
        let bob = try TestUser()
        chmod(sandbox.root, 0o755)
        try sandbox.write("manifests.d/local.manifest",
                          "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=refresh processing\nUsers=\(alice.name)\n")
        let talker = try sandbox.script("talker", "echo \"secret output of $AGENTD_IDENTIFIER\"\n")
        try sandbox.write("jobs.d/secret.job", "[Job]\nIdentifier=local.secret\nKind=processing\nExec=\(talker)\n", mode: 0o600)
        try sandbox.write("jobs.d/open.job", "[Job]\nIdentifier=local.open\nKind=processing\nExec=\(talker)\n", mode: 0o644)
        let agent = try AgentProcess(sandbox: sandbox)
        func ctl(as user: TestUser, _ arguments: String...) throws -> CommandResult {
            try runCommand("/usr/bin/setpriv", user.setpriv + [Binaries.agentctl, "--socket", sandbox.socketPath] + arguments)
        }

        // run: refused to bob, allowed to alice (named by Users=).
        let refused = try ctl(as: bob, "run", "local.secret")
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("run"), "\(refused.stderr)")
        let started = try ctl(as: alice, "run", "local.secret")
        #expect(started.status == 0, "\(started.stderr)")
        try agent.waitForLog("run r000001 of local.secret ended:")
        #expect(try agent.ctl("run", "local.open").status == 0)
        try agent.waitForLog("run r000002 of local.open ended:")

        let hidden = try ctl(as: bob, "logs", "local.secret", "--json")
        #expect(hidden.status == 0, "\(hidden.stderr)")
        #expect(!hidden.stdout.contains("secret output"), "\(hidden.stdout)")
        let open = try ctl(as: bob, "logs", "local.open")
        #expect(open.stdout.contains("r000002: secret output of local.open"), "\(open.stdout)")
        let hers = try ctl(as: alice, "logs", "local.secret")
        #expect(hers.stdout.contains("r000001: secret output of local.secret"), "\(hers.stdout)")
        // simulate is root's alone; the refusal names the command as it was typed.
        let simulated = try ctl(as: alice, "simulate", "launch", "local.secret")
        #expect(simulated.status == 1 && simulated.stderr.contains("simulate launch is for root: run it with sudo"),
                "\(simulated.stderr)")
    }
}

/// A FIFO a plugin reads a line from (`read line < FIFO`), held open by the test for reading and
/// writing from the start: the plugin's open never waits for a writer, the test never waits for
/// a reader (a failed plugin cannot hang the test), and the line waits in the pipe until read.
/// Mode 0666: plugins run as the agent's default user, not root.
final class FIFOGate {
    private let descriptor: Int32

    init(_ path: String) throws {
        guard mkfifo(path, 0o666) == 0 else { throw POSIXError(.EEXIST) }
        chmod(path, 0o666)
        descriptor = Glibc.open(path, O_RDWR | O_NONBLOCK)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
    }

    deinit { close(descriptor) }

    func open(_ line: String) {
        _ = (line + "\n").withCString { write(descriptor, $0, strlen($0)) }
    }
}

/// Loose JSON for assertions.
enum JSONDecoding {
    /// `2026-12-01T08:00:00.123Z` (docs/json.md), as requests carry instants.
    static func rfc3339(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    static func array(_ text: String) throws -> [[String: Any]] {
        try #require(try json(text) as? [[String: Any]])
    }

}
