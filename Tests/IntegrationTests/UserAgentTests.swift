// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `agentd --user` (DESIGN §2, issue 14): run as an unprivileged user created for the test, with
/// its XDG directories in a temp directory; it makes its config skeleton, runs jobs as its user,
/// keeps its history across a restart, and shares nothing with root's agent or other users.
@Suite(.serialized) struct UserAgentTests {
    private func continuedJob(_ session: UserSession, _ name: String, _ body: String, extra: String = "") throws {
        let plugin = try session.plugin(name, body)
        try session.write(session.configDirectory + "/jobs.d/\(name).job",
                          "[Job]\nIdentifier=local.\(name)\nKind=continued\nExec=\(plugin)\n\(extra)")
    }

    private func owner(_ path: String) -> (uid: UInt32, mode: mode_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_uid, info.st_mode & 0o7777)
    }

    @Test func theUserAgentCreatesItsSkeletonRunsJobsAsItsUserAndKeepsHistoryAcrossARestart() throws {
        let user = try TestUser()
        let session = try UserSession(user: user)
        var agent: UserAgent? = try UserAgent(session)
        try agent?.waitForLog("created \(session.configDirectory) with agentd.conf")
        for file in ["agentd.conf", "manifests.d/local.manifest", "jobs.d"] {
            let found = owner(session.configDirectory + "/" + file)
            #expect(found?.uid == user.uid, "\(file) is not the user's")
            #expect(found.map { $0.mode & 0o022 == 0 } == true, "\(file) is group- or world-writable")
        }
        #expect(owner(session.socketPath)?.mode == 0o600)
        #expect(FileManager.default.fileExists(atPath: session.stateDirectory + "/state.db"))
        // The user's own jobs are not rationed, as the package's local.manifest says for root's.
        let status = try json(try session.ctl("--user", "status", "--json").stdout) as? [String: Any]
        let local = (status?["budgets"] as? [[String: Any]] ?? []).first { $0["manifest"] as? String == "local" }
        #expect(local?["dailyLaunchCount"] as? Int == Int.max, "\(local ?? [:])")

        try continuedJob(session, "export", "id -u > \"$STATE_DIRECTORY/uid\"\necho PROGRESS=1/1\n")
        try agent?.waitForLog("registered local.export")
        let submitted = try session.ctl("--user", "submit", "local.export", "--title", "Export", "--wait")
        #expect(submitted.status == 0, "\(submitted.stdout)\(submitted.stderr)")
        let uid = try String(contentsOfFile: session.stateDirectory + "/jobs/local.export/uid", encoding: .utf8)
        #expect(uid.trimmingCharacters(in: .whitespacesAndNewlines) == String(user.uid))

        // agentctl alone finds the user agent: not root, no AGENTD_SOCKET, the socket exists.
        let listed = try session.ctl("list", "--json")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("\"local.export\""))

        agent?.stop()
        agent = nil
        let restarted = try UserAgent(session)
        #expect(!restarted.logLines.contains { $0.contains("created ") }, "the skeleton is made only once")
        let history = try session.ctl("--user", "history", "local.export", "--json")
        #expect(history.status == 0, "\(history.stderr)")
        let runs = try json(history.stdout) as? [[String: Any]] ?? []
        #expect(runs.count == 1)
        #expect(runs.first?["stopReason"] as? String == "success", "\(history.stdout)")
        #expect(runs.first?["title"] as? String == "Export", "\(history.stdout)")
    }

    /// Issue 28 item 5: after logout (logind removes $XDG_RUNTIME_DIR) the agent stayed alive
    /// and unreachable, and a second one started beside it on the same state; its state was
    /// readable by other users. Now: one agent per user, private state, a clean stop at logout.
    @Test func oneAgentPerUserPrivateStateAndAStopAtLogout() throws {
        let user = try TestUser()
        let session = try UserSession(user: user)
        let agent = try UserAgent(session)
        #expect(owner(session.stateDirectory)?.mode == 0o700)
        #expect(owner(session.stateDirectory + "/state.db")?.mode == 0o600)
        // A second agent of the same user refuses before touching anything.
        let second = try runCommand("/usr/bin/setpriv", session.user.setpriv + [Binaries.agentd, "--user"],
                                    environment: session.environment)
        #expect(second.status == 1)
        #expect(second.stderr.contains("already running for this user"), "\(second.stderr)")
        #expect(second.stderr.contains("systemctl --user stop agentd"), "\(second.stderr)")
        // Logout: the runtime directory goes; the agent stops as on SIGTERM.
        try FileManager.default.removeItem(atPath: session.runtimeDirectory)
        try agent.waitForLog("was removed (logout): stopping")
        #expect(!agent.logLines.contains { $0.contains("signal 15") }, "no signal was sent: \(agent.logLines)")
        try agent.waitForLog("agentd stopped")
        agent.child.process.waitUntilExit()
        #expect(agent.child.process.terminationStatus == 0)
    }

    @Test func aJobNamingAnotherUserIsRefusedWithTheReason() throws {
        let session = try UserSession(user: try TestUser())
        let agent = try UserAgent(session)
        try continuedJob(session, "asroot", "exit 0\n", extra: "User=root\n")
        let line = try agent.waitForLog("asroot.job")
        #expect(line.contains("User: \"root\" cannot be used: the agent runs unprivileged as \(session.user.name)"), "\(line)")
    }

    @Test func rootsAgentIsUnaffectedAndAnotherUserCannotConnect() throws {
        let session = try UserSession(user: try TestUser(), runtimeMode: 0o711)
        let userAgent = try UserAgent(session)
        try continuedJob(session, "mine", "echo PROGRESS=1/1\n")
        try userAgent.waitForLog("registered local.mine")

        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/theirs.job", sandbox.jobFile("theirs", kind: "continued", interval: "1h"))
        let rootAgent = try AgentProcess(sandbox: sandbox)
        let rootJobs = try listedJobs(rootAgent)
        #expect(rootJobs["local.theirs"] != nil)
        #expect(rootJobs["local.mine"] == nil)
        let mine = try session.ctl("--user", "list", "--json")
        #expect(mine.stdout.contains("\"local.mine\"") && !mine.stdout.contains("local.theirs"), "\(mine.stdout)")

        // Another uid reaches the socket (its directory is traversable here) but not through 0600.
        let other = try TestUser()
        let refused = try runCommand("/usr/bin/setpriv", other.setpriv + [Binaries.agentctl, "--socket", session.socketPath, "status"],
                                     environment: ["PATH": "/usr/bin:/bin"])
        #expect(refused.status == 5, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("not allowed to connect to agentd at \(session.socketPath): it is "
            + "\(session.user.name)'s (mode 0600), so only \(session.user.name) and root may connect; "
            + "your own agent answers agentctl --user"), "\(refused.stderr)")
        // A directory on the way that is closed to them is named, with whose it is.
        let closed = sandbox.root + "/closed"
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false)
        chmod(closed, 0o700)
        let walledOff = try runCommand("/usr/bin/setpriv", other.setpriv + [Binaries.agentctl, "--socket", closed + "/agentd.sock", "status"],
                                       environment: ["PATH": "/usr/bin:/bin"])
        #expect(walledOff.status == 5)
        #expect(walledOff.stderr.contains("the directory \(closed) on the way to it is closed to you (mode 0700, owner root): "
            + "run agentctl as its owner or as root"), "\(walledOff.stderr)")
        // And agentctl alone, as that user, does not pick someone else's socket.
        let elsewhere = try runCommand("/usr/bin/setpriv", other.setpriv + [Binaries.agentctl, "status"],
                                       environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": session.root + "/nothing"])
        #expect(elsewhere.stderr.contains("/run/agentd/agentd.sock"), "\(elsewhere.stderr)")
        // Both agents still answer.
        #expect(try rootAgent.ctl("status").status == 0)
        #expect(try session.ctl("--user", "status").status == 0)
    }

    @Test func rootIsToldToRunTheSystemAgentInstead() throws {
        let session = try UserSession(user: try TestUser())
        let result = try runCommand(Binaries.agentd, ["--user"], environment: session.environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("as root, run the system agent instead"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: session.configDirectory), "nothing was created")
    }

    @Test func withoutXDGRuntimeDirTheUserAgentSaysWhatToSet() throws {
        let session = try UserSession(user: try TestUser())
        var environment = session.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let result = try runCommand("/usr/bin/setpriv", session.user.setpriv + [Binaries.agentd, "--user"], environment: environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("XDG_RUNTIME_DIR is not set"), "\(result.stderr)")
        #expect(result.stderr.contains("systemctl --user start agentd"), "\(result.stderr)")
    }
}

/// App-shipped definitions in `$XDG_DATA_DIRS/agentd/` (read-only, root's): read at start; a
/// file of the same name in `~/.config/agentd` replaces one, and its removal brings it back.
@Suite(.serialized) struct UserAgentDataDirectoryTests {
    private func kind(_ session: UserSession, _ id: String) throws -> String? {
        let listed = try session.ctl("--user", "list", "--json")
        let jobs = try json(listed.stdout) as? [[String: Any]] ?? []
        return jobs.first { $0["identifier"] as? String == id }?["kind"] as? String
    }

    @Test func anAppShippedJobIsReadFromTheDataDirectoryAndTheUsersFileOfTheSameNameWins() throws {
        let session = try UserSession(user: try TestUser())
        let shared = session.root + "/share/agentd"
        try FileManager.default.createDirectory(atPath: shared + "/manifests.d", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: shared + "/jobs.d", withIntermediateDirectories: true)
        let plugin = shared + "/sync"
        try "#!/bin/sh\necho PROGRESS=1/1\n".write(toFile: plugin, atomically: false, encoding: .utf8)
        chmod(plugin, 0o755)
        try "[Manifest]\nPermittedIdentifiers=com.example.app.*\nBackgroundModes=continued processing\n"
            .write(toFile: shared + "/manifests.d/com.example.app.manifest", atomically: false, encoding: .utf8)
        try "[Job]\nIdentifier=com.example.app.sync\nKind=continued\nExec=\(plugin)\n"
            .write(toFile: shared + "/jobs.d/app.job", atomically: false, encoding: .utf8)
        let agent = try UserAgent(session)
        try agent.waitForLog("registered com.example.app.sync")
        #expect(try kind(session, "com.example.app.sync") == "continued")
        #expect(try session.ctl("--user", "submit", "com.example.app.sync", "--wait").status == 0)

        let mine = session.configDirectory + "/jobs.d/app.job"
        try session.write(mine, "[Job]\nIdentifier=com.example.app.sync\nKind=processing\nExec=\(plugin)\nInterval=1d\n")
        try agent.waitForLog("updated com.example.app.sync")
        #expect(try kind(session, "com.example.app.sync") == "processing")
        let mark = agent.logLines.count
        try FileManager.default.removeItem(atPath: mine)
        try agent.waitForLog("updated com.example.app.sync", after: mark)
        #expect(try kind(session, "com.example.app.sync") == "continued")
    }
}
