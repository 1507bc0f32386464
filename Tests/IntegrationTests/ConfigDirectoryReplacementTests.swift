// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue 10 item 4: a deploy that removes, recreates or swaps the config directory (or its
/// subdirectories) must not leave the agent deaf, nor unregister jobs the new directory still
/// defines, nor cancel their runs.
@Suite(.serialized) struct ConfigDirectoryReplacementTests {
    /// Only a mount over jobs.d hides a change from inotify, and mounting takes root.
    static let mountNeedsRoot: Comment = "needs root to mount a tmpfs over jobs.d"

    /// Runs a shell command line (the way an admin or a deploy script does it).
    func sh(_ command: String) throws {
        let result = try runCommand("/bin/sh", ["-c", command])
        #expect(result.status == 0, "\(command): \(result.stderr)")
    }

    func configWatch(_ agent: AgentProcess) throws -> [String: Any] {
        let status = try agent.ctl("status", "--json")
        return (try json(status.stdout) as? [String: Any])?["configWatch"] as? [String: Any] ?? [:]
    }

    @Test func removingAndCopyingBackTheConfigDirectoryKeepsTheAgentListening() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/one.job", sandbox.jobFile("one"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let backup = sandbox.root + "/backup"
        try sh("cp -a '\(sandbox.configDirectory)' '\(backup)'")
        try (sandbox.jobFile("two")).write(toFile: backup + "/jobs.d/two.job", atomically: false, encoding: .utf8)
        let mark = agent.logLines.count

        try sh("rm -rf '\(sandbox.configDirectory)' && cp -a '\(backup)' '\(sandbox.configDirectory)'")
        try agent.waitForLog("registered local.two", after: mark)
        // Still listening afterwards, in the new directory and its subdirectories.
        try sandbox.write("jobs.d/three.job", sandbox.jobFile("three"))
        try agent.waitForLog("registered local.three", after: mark)
        #expect(Set(try listedJobs(agent).keys) == ["local.one", "local.two", "local.three"])
        // Settled (a probe deletion has taken effect), and local.one was never removed.
        try FileManager.default.removeItem(atPath: sandbox.jobsDirectory + "/three.job")
        try agent.waitForLog("removed local.three", after: mark, timeout: 60)
        #expect(!agent.logLines[mark...].contains { $0.contains("removed local.one") })
        #expect(try configWatch(agent)["watching"] as? Int == 3)
    }

    @Test func whileTheDirectoryIsMissingStatusSaysSoAndTheJobsStay() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/kept.job", sandbox.jobFile("kept"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let mark = agent.logLines.count
        try sh("rm -rf '\(sandbox.jobsDirectory)'")
        try agent.waitForLog("missing; the config last read there stays in force", after: mark)
        let watch = try configWatch(agent)
        #expect(watch["missing"] as? [String] == [sandbox.jobsDirectory])
        #expect(watch["watching"] as? Int == 2)
        #expect(try listedJobs(agent)["local.kept"]?["state"] as? String == "registered")
        let human = try agent.ctl("status").stdout
        #expect(human.contains("missing: \(sandbox.jobsDirectory) (last config kept)"), "\(human)")

        // Back, empty: now the removal takes effect, and new files are seen.
        try FileManager.default.createDirectory(atPath: sandbox.jobsDirectory, withIntermediateDirectories: false)
        try agent.waitForLog("removed local.kept", after: mark, timeout: 60)
        try sandbox.write("jobs.d/new.job", sandbox.jobFile("new"))
        try agent.waitForLog("registered local.new", after: mark)
        #expect(try configWatch(agent)["missing"] as? [String] == [])
    }

    @Test func replacingTheDirectoryByASymlinkAndSwappingTheLinkAreFollowed() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let v2 = sandbox.root + "/v2", v3 = sandbox.root + "/v3"
        try sh("cp -a '\(sandbox.configDirectory)' '\(v2)' && cp -a '\(sandbox.configDirectory)' '\(v3)'")
        try sandbox.jobFile("two").write(toFile: v2 + "/jobs.d/two.job", atomically: false, encoding: .utf8)
        try sandbox.jobFile("three").write(toFile: v3 + "/jobs.d/three.job", atomically: false, encoding: .utf8)
        var mark = agent.logLines.count

        try sh("rm -rf '\(sandbox.configDirectory)' && ln -s '\(v2)' '\(sandbox.configDirectory)'")
        try agent.waitForLog("registered local.two", after: mark)
        try sandbox.jobFile("late").write(toFile: v2 + "/jobs.d/late.job", atomically: false, encoding: .utf8)
        try agent.waitForLog("registered local.late", after: mark)

        // An atomic swap of the link, as deploy tools do it.
        mark = agent.logLines.count
        try sh("ln -s '\(v3)' '\(sandbox.configDirectory).new' && mv -T '\(sandbox.configDirectory).new' '\(sandbox.configDirectory)'")
        try agent.waitForLog("registered local.three", after: mark)
        try agent.waitForLog("removed local.two", after: mark, timeout: 60)
        try sandbox.jobFile("four").write(toFile: v3 + "/jobs.d/four.job", atomically: false, encoding: .utf8)
        try agent.waitForLog("registered local.four", after: mark)
        // The old target is no longer config.
        try sandbox.jobFile("stale").write(toFile: v2 + "/jobs.d/stale.job", atomically: false, encoding: .utf8)
        try sandbox.write("jobs.d/five.job", sandbox.jobFile("five"))
        try agent.waitForLog("registered local.five", after: mark)
        #expect(try listedJobs(agent)["local.stale"] == nil)
    }

    /// A file system mounted over jobs.d sends no inotify event: only SIGHUP can tell.
    @Test(.enabled(if: getuid() == 0, Self.mountNeedsRoot)) func sighupRewatchesADirectoryReplacedUnseen() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let mount = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "agentd-test", sandbox.jobsDirectory])
        try #require(mount.status == 0, "cannot mount a tmpfs over jobs.d: \(mount.stderr)")
        defer { _ = try? runCommand("/bin/umount", [sandbox.jobsDirectory]) }
        try sandbox.write("jobs.d/mounted.job", sandbox.jobFile("mounted"))
        let mark = agent.logLines.count
        kill(agent.process.processIdentifier, SIGHUP)
        try agent.waitForLog("registered local.mounted", after: mark)
        // And the new directory is watched from now on.
        try sandbox.write("jobs.d/after.job", sandbox.jobFile("after"))
        try agent.waitForLog("registered local.after", after: mark)
    }

    @Test func aRunningRunIsNotCancelledWhileTheDirectoryIsSwapped() throws {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("slow", "echo PROGRESS=0.1\nsleep 60\n")
        try sandbox.write("jobs.d/slow.job", "[Job]\nIdentifier=local.slow\nKind=processing\nExec=\(plugin)\nMaxRuntime=5min\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        #expect(try agent.ctl("simulate", "launch", "local.slow").status == 0)
        try agent.waitForLog("of local.slow started")
        let backup = sandbox.root + "/backup"
        try sh("cp -a '\(sandbox.configDirectory)' '\(backup)'")
        try sandbox.jobFile("marker").write(toFile: backup + "/jobs.d/marker.job", atomically: false, encoding: .utf8)
        let mark = agent.logLines.count

        try sh("rm -rf '\(sandbox.configDirectory)' && cp -a '\(backup)' '\(sandbox.configDirectory)'")
        try agent.waitForLog("registered local.marker", after: mark)
        // Past the removal quiet period (a probe deletion has taken effect), and the run still runs.
        try sandbox.write("jobs.d/probe.job", sandbox.jobFile("probe"))
        try agent.waitForLog("registered local.probe", after: mark)
        try FileManager.default.removeItem(atPath: sandbox.jobsDirectory + "/probe.job")
        try agent.waitForLog("removed local.probe", after: mark, timeout: 60)
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let running = status?["running"] as? [[String: Any]] ?? []
        #expect(running.contains { $0["identifier"] as? String == "local.slow" && $0["stopping"] == nil })
        #expect(!agent.logLines[mark...].contains { $0.contains("cancelled") || $0.contains("removed local.slow") })
        agent.stop()
    }

    /// SIGHUP is no shortcut past the quiet period: a file gone at a SIGHUP (here hidden by a
    /// file system mounted over jobs.d, which sends no inotify event) is removed once jobs.d is
    /// quiet, not by the SIGHUP's own rescan, which a deploy's half-done copy would lose jobs to.
    @Test(.enabled(if: getuid() == 0, Self.mountNeedsRoot)) func aFileGoneAtASIGHUPIsRemovedOnlyOnceTheDirectoryIsQuiet() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/hidden.job", sandbox.jobFile("hidden"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("registered local.hidden")
        let mount = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "agentd-test", sandbox.jobsDirectory])
        try #require(mount.status == 0, "cannot mount a tmpfs over jobs.d: \(mount.stderr)")
        defer { _ = try? runCommand("/bin/umount", [sandbox.jobsDirectory]) }
        try sandbox.write("jobs.d/shown.job", sandbox.jobFile("shown"))
        let mark = agent.logLines.count
        kill(agent.process.processIdentifier, SIGHUP)
        try agent.waitForLog("registered local.shown", after: mark)
        // Answered after the SIGHUP's rescan: the hidden job is still there, its removal pending
        // for 10 s (gone without a deletion event, it counts as replaced unseen).
        #expect(try listedJobs(agent)["local.hidden"] != nil)
        try agent.waitForLog("removed local.hidden", after: mark, timeout: 60)
        #expect(try listedJobs(agent)["local.hidden"] == nil)
    }

    /// `rm -rf` of a big directory takes a while, and its deletions reach the agent while it is
    /// still running: none of them may take effect.
    @Test func swappingABigDirectoryRemovesNothing() throws {
        let sandbox = try Sandbox()
        for index in 0..<300 { try sandbox.write("jobs.d/bulk\(index).job", sandbox.jobFile("bulk\(index)")) }
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let backup = sandbox.root + "/backup"
        try sh("cp -a '\(sandbox.configDirectory)' '\(backup)'")
        try sandbox.jobFile("marker").write(toFile: backup + "/jobs.d/zz-marker.job", atomically: false, encoding: .utf8)
        let mark = agent.logLines.count
        for _ in 0..<3 {
            try sh("rm -rf '\(sandbox.configDirectory)' && cp -a '\(backup)' '\(sandbox.configDirectory)'")
        }
        try agent.waitForLog("registered local.marker", after: mark)
        // A deliberate deletion as a probe: removals are settled together, so once this one has
        // taken effect, every deletion of the swaps has been judged too.
        try FileManager.default.removeItem(atPath: sandbox.jobsDirectory + "/bulk0.job")
        try agent.waitForLog("removed local.bulk0", after: mark, timeout: 60)
        let removed = agent.logLines[mark...].filter { $0.contains("removed local.") }
        // On failure, the config lines since the swaps tell which removal took effect when.
        let configLines = agent.logLines[mark...].filter { !$0.contains(">run r") }
        #expect(removed.count == 1, "\(configLines.joined(separator: "\n"))")
        #expect(try listedJobs(agent).count == 300)
    }
}
