// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `agentctl watch` on a real terminal (a tmux pane, 100×30) against a real agent with a running
/// job: the screen is compared with Tests/Golden/integration/watch-100x30.txt, then Ctrl-C must
/// leave the terminal as it was (cursor visible, keys echoed again, exit 0). The pane's script
/// ends by itself within minutes (`--count`, `read -t`) should a crashed test leave it behind.
@Suite(.serialized) struct WatchTerminalTests {
    private func startWatch(_ fixture: FixtureAgent) throws -> TmuxSession {
        try TmuxSession(width: 100, height: 30, script: """
            \(Binaries.agentctl) --socket \(fixture.sandbox.socketPath) watch --interval 0.3 --count 1000
            echo "agentctl exited with $?"
            read -r -t 300 line
            """, directory: fixture.sandbox.root)
    }

    private static let escape = "\u{1B}"

    @Test func liveViewShowsProgressBarsAndRestoresTheTerminalOnCtrlC() throws {
        let fixture = try FixtureAgent()
        let tmux = try startWatch(fixture)
        let screen = try tmux.waitForScreen { $0.contains("] 42%") && $0.contains("Exporting Photos") && $0.contains("Ctrl-C to quit") }
        #expect(try tmux.display("#{cursor_flag}") == "0", "the cursor is hidden while watch draws")
        OutputGoldens.expect(OutputGoldens.normalisedText(screen, sandbox: fixture.sandbox, volatile: OutputGoldens.timePatterns),
                             matches: "watch-100x30.txt")
        // A few more frames, then Ctrl-C.
        let frames = tmux.rawOutput.components(separatedBy: Self.escape + "[H").count - 1
        try tmux.waitForRawOutput { $0.components(separatedBy: Self.escape + "[H").count - 1 >= frames + 2 }
        try tmux.sendKeys("C-c")
        let after = try tmux.waitForScreen { $0.contains("agentctl exited with") }
        #expect(after.contains("agentctl exited with 0"))
        #expect(try tmux.display("#{cursor_flag}") == "1", "the cursor is visible again")
        #expect(!after.contains("^C"), "Ctrl-C is not echoed into the view")
        #expect(after.contains("Exporting Photos"), "the last frame stays on the screen")

        let raw = tmux.rawOutput
        #expect(raw.hasPrefix(Self.escape + "[?25l"), "hides the cursor first")
        #expect(raw.components(separatedBy: Self.escape + "[2J").count - 1 == 1, "clears the screen once, not per frame (no flicker)")
        #expect(raw.components(separatedBy: Self.escape + "[K").count > 10, "rewrites lines and erases their ends")
        #expect(raw.contains(Self.escape + "[J"), "erases below the frame")
        let hide = raw.range(of: Self.escape + "[?25l", options: .backwards)
        let show = raw.range(of: Self.escape + "[?25h", options: .backwards)
        #expect(hide != nil && show != nil && show!.lowerBound > hide!.lowerBound, "shows the cursor after the last hide")
        // Keys typed now are echoed again (the view had turned echo off).
        try tmux.sendKeys("-l", "typed")
        try tmux.waitForScreen { $0.contains("typed") }
    }

    @Test func theViewSaysWhenTheAgentGoesAwayAndRecoversWhenItIsBack() throws {
        let fixture = try FixtureAgent()
        let tmux = try startWatch(fixture)
        try tmux.waitForScreen { $0.contains("] 42%") }
        fixture.agent.stop()
        let message = "agentd is not answering at \(fixture.sandbox.socketPath) (retrying…)"
        try tmux.waitForScreen { $0.hasPrefix(message) }
        let again = try FileLoggedAgent(sandbox: fixture.sandbox)
        try tmux.waitForScreen { $0.hasPrefix("agentd 0.") && $0.contains("Running: none") }
        try tmux.sendKeys("C-c")
        try tmux.waitForScreen { $0.contains("agentctl exited with 0") }
        _ = again
    }

    @Test func SIGTERMAlsoRestoresTheTerminal() throws {
        let fixture = try FixtureAgent()
        let tmux = try startWatch(fixture)
        try tmux.waitForScreen { $0.contains("] 42%") }
        let pids = try runCommand("/usr/bin/pgrep", ["-f", "\(fixture.sandbox.socketPath) watch"]).stdout
            .split(separator: "\n").compactMap { Int32($0) }
        #expect(pids.count == 1)
        for pid in pids { kill(pid, SIGTERM) }
        try tmux.waitForScreen { $0.contains("agentctl exited with 0") }
        #expect(try tmux.display("#{cursor_flag}") == "1")
    }

    /// Issue 29: a run that ends while the view is open stays on it, under "Finished", with how it
    /// ended and its RESULT= (a failure: its last STATUS=), frame after frame.
    @Test func runsThatEndWhileWatchingStayVisibleWithTheirResult() throws {
        let fixture = try FixtureAgent()
        let album = fixture.sandbox.root + "/album.zip"
        for (name, body) in [("done.sh", "echo TITLE=Packing album\necho STATUS=packing\necho RESULT=\(album)\n"),
                             ("fetch.sh", "echo 'STATUS=server said 503'\nexit 3\n")] {
            let path = fixture.sandbox.root + "/" + name
            try ("#!/bin/sh\n" + body).write(toFile: path, atomically: false, encoding: .utf8)
            chmod(path, 0o755)
        }
        try fixture.sandbox.write("jobs.d/done.job", "[Job]\nIdentifier=local.done\nKind=processing\nExec=\(fixture.sandbox.root)/done.sh\n")
        try fixture.sandbox.write("jobs.d/fetch.job", "[Job]\nIdentifier=local.fetch\nKind=processing\nExec=\(fixture.sandbox.root)/fetch.sh\n")
        try fixture.agent.waitForLog("registered local.done")
        try fixture.agent.waitForLog("registered local.fetch")
        let tmux = try startWatch(fixture)
        try tmux.waitForScreen { $0.contains("] 42%") }
        #expect(!(try tmux.screen()).contains("Finished"), "nothing ended since the view opened")
        #expect(try fixture.agent.ctl("simulate", "launch", "local.done").status == 0)
        let screen = try tmux.waitForScreen { $0.contains("Finished (last 60 s)") && $0.contains("→ \(album)") }
        #expect(screen.contains("local.done"), "\(screen)")
        #expect(screen.contains("success · "), "\(screen)")
        #expect(screen.contains("Packing album"), "the title it showed while it ran")
        #expect(try fixture.agent.ctl("simulate", "launch", "local.fetch").status == 0)
        let both = try tmux.waitForScreen { $0.contains("failure(exit 3)") && $0.contains("server said 503") }
        #expect(both.contains("→ \(album)"), "the earlier one is still there: \(both)")
        // Frames go on (every 0.3 s) and the finished runs stay.
        let frames = tmux.rawOutput.components(separatedBy: Self.escape + "[H").count - 1
        try tmux.waitForRawOutput { $0.components(separatedBy: Self.escape + "[H").count - 1 >= frames + 3 }
        let later = try tmux.screen()
        #expect(later.contains("→ \(album)") && later.contains("server said 503"), "\(later)")
        try tmux.sendKeys("C-c")
        try tmux.waitForScreen { $0.contains("agentctl exited with 0") }
    }
}
