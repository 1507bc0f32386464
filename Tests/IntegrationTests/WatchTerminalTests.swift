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
}
