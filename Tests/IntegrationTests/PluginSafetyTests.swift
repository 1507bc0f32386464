// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A plugin is checked again at every spawn (DESIGN §3): one made group- or world-writable after
/// its job loaded, or put under a directory others can write, never runs — whenever it became
/// so — and the run says which file and what cures it.
@Suite(.serialized) struct PluginSafetyTests {
    /// A job whose plugin leaves a mark when it runs; returns the agent, the plugin and the mark.
    private func agentWithMarkingPlugin(in directory: String? = nil) throws
        -> (agent: AgentProcess, plugin: String, mark: String)
    {
        let sandbox = try Sandbox()
        let place = directory.map { sandbox.root + "/" + $0 } ?? sandbox.root
        try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
        chmod(place, 0o755)
        let mark = sandbox.root + "/ran"
        let plugin = place + "/marker.sh"
        try "#!/bin/sh\necho ran >> \(mark)\n".write(toFile: plugin, atomically: false, encoding: .utf8)
        chmod(plugin, 0o755)
        try sandbox.write("jobs.d/marker.job", "[Job]\nIdentifier=local.marker\nExec=\(plugin)\nUser=root\n")
        return (try AgentProcess(sandbox: sandbox), plugin, mark)
    }

    private func launchAndRecord(_ agent: AgentProcess, run: String) throws -> [String: Any] {
        let launched = try agent.ctl("simulate", "launch", "local.marker")
        #expect(launched.status == 0, "\(launched.stderr)")
        try agent.waitForLog("run \(run) of local.marker ended:")
        let history = try json(try agent.ctl("history", "local.marker", "--json").stdout) as? [[String: Any]]
        return history?.first ?? [:]
    }

    @Test func aPluginMadeWorldWritableAfterItsJobLoadedNeverRunsUntilTheCure() throws {
        let (agent, plugin, mark) = try agentWithMarkingPlugin()
        // Behind the agent's back: the plugin is not in the config directory, nothing reloads.
        chmod(plugin, 0o757)
        let refused = try launchAndRecord(agent, run: "r000001")
        #expect(refused["stopReason"] as? String
            == "spawn-failed(unsafe: \(plugin) is world-writable; run chmod o-w \(plugin))")
        #expect(!FileManager.default.fileExists(atPath: mark), "the world-writable plugin ran")

        // The advice, as written, is the cure.
        let cure = try runCommand("/bin/sh", ["-c", "chmod o-w \(plugin)"])
        #expect(cure.status == 0)
        let cured = try launchAndRecord(agent, run: "r000002")
        #expect(cured["stopReason"] as? String == "success")
        #expect(FileManager.default.fileExists(atPath: mark))
    }

    @Test func aPluginMadeGroupWritableNeverRuns() throws {
        let (agent, plugin, mark) = try agentWithMarkingPlugin()
        chmod(plugin, 0o775)
        let refused = try launchAndRecord(agent, run: "r000001")
        #expect(refused["stopReason"] as? String
            == "spawn-failed(unsafe: \(plugin) is group-writable; run chmod g-w \(plugin))")
        #expect(!FileManager.default.fileExists(atPath: mark))
    }

    @Test func aPluginUnderADirectoryOthersCanWriteNeverRuns() throws {
        let (agent, plugin, mark) = try agentWithMarkingPlugin(in: "plugins/bin")
        let directory = (plugin as NSString).deletingLastPathComponent
        let above = (directory as NSString).deletingLastPathComponent
        // Whoever can write `plugins` can rename `bin` away and put their own plugin there.
        chmod(above, 0o777)
        let refused = try launchAndRecord(agent, run: "r000001")
        #expect(refused["stopReason"] as? String
            == "spawn-failed(unsafe: \(above) (above \(plugin)) is group- and world-writable; run chmod go-w \(above))")
        #expect(!FileManager.default.fileExists(atPath: mark))
    }

    @Test func aPluginReachedThroughASymlinkIsCheckedWhereItReallyIs() throws {
        let (agent, plugin, mark) = try agentWithMarkingPlugin()
        // The job names `marker.sh`; make it a link to a copy in a world-writable directory.
        let open = (plugin as NSString).deletingLastPathComponent + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
        chmod(open, 0o777)
        let target = open + "/marker.sh"
        try FileManager.default.copyItem(atPath: plugin, toPath: target)
        try FileManager.default.removeItem(atPath: plugin)
        try FileManager.default.createSymbolicLink(atPath: plugin, withDestinationPath: target)
        let refused = try launchAndRecord(agent, run: "r000001")
        #expect(refused["stopReason"] as? String
            == "spawn-failed(unsafe: \(open) (on the way to \(plugin)) is group- and world-writable; run chmod go-w \(open))")
        #expect(!FileManager.default.fileExists(atPath: mark))
    }

    /// Issue 28 item 11: every link on the way counts, not only where it ends. A link owned by
    /// another user (here `nobody`) is refused even in root's directory, with what to do.
    @Test func aPluginLinkOwnedByAnotherUserNeverRuns() throws {
        let (agent, plugin, mark) = try agentWithMarkingPlugin()
        let real = (plugin as NSString).deletingLastPathComponent + "/real-marker.sh"
        #expect(rename(plugin, real) == 0)
        #expect(symlink(real, plugin) == 0)
        lchown(plugin, 65534, 65534)
        let refused = try launchAndRecord(agent, run: "r000001")
        #expect(refused["stopReason"] as? String
            == "spawn-failed(unsafe: \(plugin) (a symbolic link to \(real) on the way to \(plugin)) is owned by "
            + "uid 65534, not root, so that user could choose which file it leads to; run chown -h root \(plugin))")
        #expect(!FileManager.default.fileExists(atPath: mark))

        let cure = try runCommand("/bin/sh", ["-c", "chown -h root \(plugin)"])
        #expect(cure.status == 0)
        let cured = try launchAndRecord(agent, run: "r000002")
        #expect(cured["stopReason"] as? String == "success")
    }
}
