// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// DESIGN §9 against a real system agentd, with throwaway users: every local user reads (what
/// they see of a job depends on whether they could read its file), a manifest's `Users=` act
/// for its identifiers and no others, and a run acts for its own manifest's identifiers.
@Suite(.serialized) struct SocketAuthorityTests {
    /// Two manifests: `photos` names `alice`, `mail` names nobody. The photos and mail jobs'
    /// files are root's alone (0600); `com.example.mail.open` is readable by everyone.
    private final class World {
        let sandbox: Sandbox
        let alice: TestUser
        let bob: TestUser
        /// Named through her own group (useradd -U gives each user a group of its name).
        let carol: TestUser
        var agent: AgentProcess!

        init() throws {
            sandbox = try Sandbox()
            alice = try TestUser()
            bob = try TestUser()
            carol = try TestUser()
            // Others must reach the socket and the plugins (a run is nobody's).
            chmod(sandbox.root, 0o755)
            try sandbox.write("manifests.d/photos.manifest", """
                [Manifest]
                PermittedIdentifiers=com.example.photos.*
                BackgroundModes=refresh processing
                Users=\(alice.name)
                Groups=\(carol.name)
                """)
            try sandbox.write("manifests.d/mail.manifest",
                              "[Manifest]\nPermittedIdentifiers=com.example.mail.*\nBackgroundModes=refresh\n")
            let talker = try sandbox.script("talker", """
                echo "TITLE=secret title of $AGENTD_IDENTIFIER"
                echo "STATUS=secret status of $AGENTD_IDENTIFIER"
                echo "secret output of $AGENTD_IDENTIFIER"
                echo "RESULT=secret result of $AGENTD_IDENTIFIER"
                """)
            let sleeper = try sandbox.script("sleeper", "exec sleep 60\n")
            // A refresh handler scheduling its next refresh, then trying another manifest's.
            let selfScheduling = try sandbox.script("self-scheduling", """
                \(Binaries.agentctl) request com.example.photos.refresh --earliest +1h 2>&1
                echo "own manifest: exit $?"
                \(Binaries.agentctl) request com.example.mail.sync --earliest +1h 2>&1
                echo "other manifest: exit $?"
                """)
            try job("photos-refresh", "com.example.photos.refresh", "refresh", talker, mode: 0o600)
            try job("photos-slow", "com.example.photos.slow", "processing", sleeper, mode: 0o600)
            try job("photos-self", "com.example.photos.self", "refresh", selfScheduling, mode: 0o600)
            try job("mail-sync", "com.example.mail.sync", "refresh", talker, mode: 0o600)
            try job("mail-open", "com.example.mail.open", "refresh", talker, mode: 0o644)
            agent = try AgentProcess(sandbox: sandbox)
        }

        deinit { agent?.stop() }

        private func job(_ name: String, _ id: String, _ kind: String, _ exec: String, mode: mode_t) throws {
            try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=\(id)\nKind=\(kind)\nExec=\(exec)\n", mode: mode)
        }

        /// agentctl as `user`, with only that user's own groups.
        func ctl(as user: TestUser, _ arguments: String...) throws -> CommandResult {
            try runCommand("/usr/bin/setpriv", user.setpriv + [Binaries.agentctl, "--socket", sandbox.socketPath] + arguments)
        }

        /// Runs `id` now (as root) and waits for its end.
        func runToEnd(_ id: String) throws {
            let started = try agent.ctl("simulate", "launch", id)
            #expect(started.status == 0, "\(started.stderr)")
            let run = started.stdout.split(separator: " ").last { $0.hasPrefix("r0") }.map(String.init) ?? "?"
            try agent.waitForLog("run \(run) of \(id) ended:")
        }
    }

    private static let enabled = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/sbin/useradd")

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd: the peers are throwaway users"))
    func theSystemSocketLetsEveryLocalUserConnect() throws {
        let world = try World()
        var info = stat()
        #expect(stat(world.sandbox.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o666)
        let status = try world.ctl(as: world.bob, "status")
        #expect(status.status == 0, "\(status.stderr)")
    }

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd: the peers are throwaway users"))
    func aListedUserRequestsTriggersAndCancelsTheirManifestsIdentifiersAndNoOthers() throws {
        let world = try World()
        let requested = try world.ctl(as: world.alice, "request", "com.example.photos.refresh", "--earliest", "+1h")
        #expect(requested.status == 0, "\(requested.stderr)")
        #expect(requested.stdout.contains("requested com.example.photos.refresh"))
        let triggered = try world.ctl(as: world.alice, "trigger", "com.example.photos.refresh")
        #expect(triggered.status == 0, "\(triggered.stderr)")
        let byGroup = try world.ctl(as: world.carol, "request", "com.example.photos.refresh", "--earliest", "+2h")
        #expect(byGroup.status == 0, "a member of a group the manifest names: \(byGroup.stderr)")

        #expect(try world.agent.ctl("simulate", "launch", "com.example.photos.slow").status == 0)
        try world.agent.waitForLog("of com.example.photos.slow started")
        let cancelled = try world.ctl(as: world.alice, "cancel", "com.example.photos.slow")
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout.contains("cancelling r0"))
        try world.agent.waitForLog("of com.example.photos.slow ended: cancelled")

        // Another manifest's identifier: refused, naming who may instead.
        let other = try world.ctl(as: world.alice, "request", "com.example.mail.sync")
        #expect(other.status == 1)
        #expect(other.stderr.contains("request com.example.mail.sync: only root or group agentd may; manifest mail names no Users= or Groups="),
                "\(other.stderr)")
        // Someone the manifest does not name: refused, told that Users=alice may.
        let bob = try world.ctl(as: world.bob, "trigger", "com.example.photos.refresh")
        #expect(bob.status == 1)
        #expect(bob.stderr.contains("only root, group agentd, or users/groups named by manifest photos (Users=\(world.alice.name) Groups=\(world.carol.name)) may"),
                "\(bob.stderr)")
        #expect(!bob.stderr.contains("join"))
        // Changes that act for no identifier stay root's and group agentd's.
        let pause = try world.ctl(as: world.alice, "pause")
        #expect(pause.status == 1 && pause.stderr.contains("pause changes the agent"), "\(pause.stderr)")
        let enable = try world.ctl(as: world.alice, "disable", "com.example.photos.refresh")
        #expect(enable.status == 1, "disable is not one of the manifest's verbs: \(enable.stdout)")
    }

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd: the peers are throwaway users"))
    func cancelRequestAllAsAListedUserWithdrawsOnlyTheirs() throws {
        let world = try World()
        #expect(try world.agent.ctl("request", "com.example.photos.refresh", "--earliest", "+1h").status == 0)
        #expect(try world.agent.ctl("request", "com.example.mail.sync", "--earliest", "+1h").status == 0)
        let withdrawn = try world.ctl(as: world.alice, "cancel-request", "--all")
        #expect(withdrawn.status == 0, "\(withdrawn.stderr)")
        #expect(withdrawn.stdout.contains("withdrew 1 request"), "\(withdrawn.stdout)")
        let pending = try json(try world.agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        let requested = Set(pending.filter { $0["request"] != nil }.compactMap { $0["identifier"] as? String })
        #expect(requested == ["com.example.mail.sync"])
    }

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd: the peers are throwaway users"))
    func anUnlistedReaderSeesWhatTheJobFilesTheyCanReadWouldTell() throws {
        let world = try World()
        try world.runToEnd("com.example.mail.sync")
        try world.runToEnd("com.example.mail.open")

        let history = try world.ctl(as: world.bob, "history", "--json")
        #expect(history.status == 0, "\(history.stderr)")
        let runs = try json(history.stdout) as? [[String: Any]] ?? []
        let hidden = try #require(runs.first { $0["identifier"] as? String == "com.example.mail.sync" })
        #expect(hidden["stopReason"] as? String == "success" && hidden["endedAt"] != nil)
        #expect((hidden["logTail"] as? [String] ?? ["?"]).isEmpty)
        #expect(hidden["statusText"] == nil && hidden["result"] == nil && hidden["title"] == nil)
        #expect(hidden["detailsHidden"] as? Bool == true)
        #expect(!history.stdout.contains("secret output of com.example.mail.sync"))
        let readable = try #require(runs.first { $0["identifier"] as? String == "com.example.mail.open" })
        #expect(readable["logTail"] as? [String] == ["secret output of com.example.mail.open"])
        #expect(readable["statusText"] as? String == "secret status of com.example.mail.open")
        #expect(readable["result"] as? String == "secret result of com.example.mail.open")
        #expect(readable["detailsHidden"] == nil)

        let list = try world.ctl(as: world.bob, "list", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        let jobs = try json(list.stdout) as? [[String: Any]] ?? []
        let sync = try #require(jobs.first { $0["identifier"] as? String == "com.example.mail.sync" })
        #expect(sync["state"] as? String == "registered" && (sync["exec"] as? [String] ?? ["?"]).isEmpty)
        let open = try #require(jobs.first { $0["identifier"] as? String == "com.example.mail.open" })
        #expect((open["exec"] as? [String] ?? []).count == 1)
        #expect(try world.ctl(as: world.bob, "status").status == 0)
        #expect(try world.ctl(as: world.bob, "pending").status == 0)
        // explain does not say a run whose details are hidden said nothing.
        let explain = try world.ctl(as: world.bob, "explain", "com.example.mail.sync")
        #expect(explain.status == 0, "\(explain.stderr)")
        #expect(explain.stdout.contains("not shown to you: its job file is not readable by you"), "\(explain.stdout)")
        #expect(!explain.stdout.contains("nothing: no STATUS="), "\(explain.stdout)")

        // Named by the manifest: alice sees her jobs' details though she cannot read their files.
        try world.runToEnd("com.example.photos.refresh")
        let hers = try json(try world.ctl(as: world.alice, "history", "--json").stdout) as? [[String: Any]] ?? []
        let photos = try #require(hers.first { $0["identifier"] as? String == "com.example.photos.refresh" })
        #expect(photos["result"] as? String == "secret result of com.example.photos.refresh")
        #expect(hers.first { $0["identifier"] as? String == "com.example.mail.sync" }?["result"] == nil)
    }

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd: the peers are throwaway users"))
    func anUnlistedSubscriberGetsNoTitleOrStatusEventsOfAJobWhoseFileTheyCannotRead() throws {
        let world = try World()
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        follower.arguments = world.bob.setpriv + [Binaries.agentctl, "--socket", world.sandbox.socketPath,
                                                  "events", "--json", "com.example.mail.*"]
        let out = Pipe()
        follower.standardOutput = out
        follower.standardError = FileHandle.nullDevice
        try follower.run()
        defer { follower.terminate(); follower.waitUntilExit() }
        let lines = LogLines()
        lines.follow(out)
        // Runs until the stream shows one whole run of each, start to end (the subscription may
        // begin late, even in the middle of a run).
        func wholeRun(_ id: String) -> Bool {
            let events = lines.lines.withLock { $0 }.compactMap { try? json($0) as? [String: Any] }
                .filter { $0["identifier"] as? String == id }
            let started = Set(events.filter { $0["type"] as? String == "run-started" }.compactMap { $0["runID"] as? String })
            return events.contains { $0["type"] as? String == "run-ended" && started.contains($0["runID"] as? String ?? "") }
        }
        for id in ["com.example.mail.sync", "com.example.mail.open"] {
            for _ in 0..<20 where !wholeRun(id) {
                try world.runToEnd(id)
                _ = lines.firstLine(until: Date().addingTimeInterval(5)) {
                    $0.contains("\"run-ended\"") && $0.contains("\"identifier\":\"\(id)\"")
                }
            }
            #expect(wholeRun(id), "no whole run of \(id) on bob's stream")
        }
        let events = lines.lines.withLock { $0 }.compactMap { try? json($0) as? [String: Any] }
        let hidden = events.filter { $0["identifier"] as? String == "com.example.mail.sync" }
        let open = events.filter { $0["identifier"] as? String == "com.example.mail.open" }
        #expect(hidden.contains { $0["type"] as? String == "run-started" })
        #expect(!hidden.contains { ["run-title", "run-status"].contains($0["type"] as? String) }, "\(hidden)")
        #expect(!hidden.contains { $0["title"] != nil || $0["status"] != nil })
        #expect(open.contains { $0["type"] as? String == "run-status" && $0["status"] as? String == "secret status of com.example.mail.open" },
                "\(open)")
    }

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd: the peers are throwaway users"))
    func aRunActsForItsOwnManifestsIdentifiersAndNotAnothers() throws {
        let world = try World()
        // The run is nobody's, named by no manifest and in no group agentd: only its cgroup says
        // it is a run of manifest photos.
        try world.runToEnd("com.example.photos.self")
        try world.agent.waitForLog("own manifest: exit 0")
        let other = try world.agent.waitForLog("other manifest: exit ")
        #expect(other.contains("other manifest: exit 1"), "\(other)")
        try world.agent.waitForLog("a run of manifest photos acts only for that manifest's identifiers, and it belongs to manifest mail")
        let pending = try json(try world.agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        let requested = Set(pending.filter { $0["request"] != nil }.compactMap { $0["identifier"] as? String })
        #expect(requested == ["com.example.photos.refresh"])
    }
}
