// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Glibc
import Testing

/// The ported iOS examples (examples/, docs/app-developers.md) under a real agentd: the
/// `BackgroundTasks` library's requests, launches, expiration and completion end to end.
@Suite(.serialized) struct ExampleAppTests {
    /// A sandbox whose manifest permits the examples' identifiers, and a job running `example`
    /// as the agent's default user (nobody): a run acts for its own manifest's identifiers, so
    /// the refresh schedules its next refresh without root or group agentd (DESIGN §9).
    /// Under `make sanitize` the apps are built with the sanitizer too, but the agent clears a
    /// run's environment (DESIGN §5), so the test hands its own sanitizer options to them (else
    /// LeakSanitizer fails an app at exit over the runtime's live allocations). Empty otherwise.
    static let sanitizerOptions: String = {
        let environment = ProcessInfo.processInfo.environment
        return ["ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS"].compactMap { name in
            environment[name].map { "\nEnvironment=\(name)=\($0)" }
        }.joined()
    }()

    private func sandbox(_ job: String, kind: String, example: String, extra: String = "") throws -> Sandbox {
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)  // the run (nobody) reaches the socket
        try sandbox.write("manifests.d/colorfeed.manifest",
                          "[Manifest]\nPermittedIdentifiers=com.example.colorfeed.*\nBackgroundModes=refresh processing\n")
        try sandbox.write("jobs.d/\(job).job", """
            [Job]
            Identifier=com.example.colorfeed.\(job)
            Kind=\(kind)
            Exec=\(Binaries.directory)/\(example)\(Self.sanitizerOptions)
            \(extra)
            """)
        return sandbox
    }

    @Test func theRefreshReschedulesItselfThreeTimesAtItsOwnEarliestBeginDate() throws {
        let sandbox = try sandbox("refresh", kind: "refresh", example: "colorfeed-refresh",
                                  extra: "Environment=COLORFEED_REFRESH_SECONDS=1\n")
        let agent = try AgentProcess(sandbox: sandbox)
        // Started by a person first: it asks for its first refresh and exits.
        let first = try runCommand(Binaries.directory + "/colorfeed-refresh", [],
                                   environment: ["AGENTD_SOCKET": sandbox.socketPath, "COLORFEED_REFRESH_SECONDS": "1"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("scheduled com.example.colorfeed.refresh"), "\(first.stdout)\(first.stderr)")
        for run in 1...4 {
            try agent.waitForLog("run r00000\(run) of com.example.colorfeed.refresh started (requested")
            try agent.waitForLog("refresh \(run) done; next no earlier than 1 s from now")
        }
        try agent.waitForLog("run r000004 of com.example.colorfeed.refresh ended: success")
        // Each run asked for the next no earlier than 1 s later, and got it then: not 15 minutes of
        // trigger spacing, not before its own earliestBeginDate.
        let runs = try json(try agent.ctl("history", "--json", "com.example.colorfeed.refresh").stdout) as? [[String: Any]] ?? []
        let starts = Array(runs.compactMap { JSONInstant.milliseconds($0["startedAt"]) }.sorted().prefix(4))
        #expect(starts.count == 4, "\(runs)")
        for (earlier, later) in zip(starts, starts.dropFirst()) {
            #expect(later - earlier >= 1000 && later - earlier < 60_000, "runs started at \(starts) (ms)")
        }
        // The fourth run asked for a fifth: pending — or, 1 s on, already launched (on a slow
        // machine the launch can come before pending is asked).
        let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        if !pending.contains(where: { $0["identifier"] as? String == "com.example.colorfeed.refresh" && $0["request"] != nil }) {
            try agent.waitForLog("run r000005 of com.example.colorfeed.refresh started (requested")
        }
    }

    @Test func anExpirationReachesTheExpirationHandlerWithinTheGracePeriodAndItsCheckpointIsKept() throws {
        let sandbox = try sandbox("db-cleaning", kind: "processing", example: "colorfeed-db-cleaning",
                                  extra: "GracePeriod=5s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let events = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-progress"]])
        #expect(try agent.ctl("simulate", "launch", "com.example.colorfeed.db-cleaning").status == 0)
        try agent.waitForLog("cleaning entries 0 to 600")
        _ = try events.events { ($0["completedUnitCount"] as? Int ?? 0) >= 3 }
        #expect(try agent.ctl("simulate", "expire", "com.example.colorfeed.db-cleaning").status == 0)
        let said = try agent.waitForLog("expirationHandler: stopped at entry ")
        try agent.waitForLog("of com.example.colorfeed.db-cleaning ended: expired(simulated)")
        let history = try json(try agent.ctl("history", "--json").stdout) as? [[String: Any]] ?? []
        // It ended itself (setTaskCompleted(success: false): exit 1) before the grace period's SIGKILL.
        #expect(history.first?["exitStatus"] as? Int == 1, "\(history.first ?? [:])")
        #expect(history.first?["signal"] as? Int != 9)
        let left = history.first?["checkpointLeft"] as? String
        #expect(left.flatMap(Int.init).map { $0 >= 3 } == true, "\(said)")

        #expect(try agent.ctl("simulate", "launch", "com.example.colorfeed.db-cleaning").status == 0)
        try agent.waitForLog("cleaning entries \(left ?? "?") to 600")
    }

    // MARK: a continued export (Apple's "Performing long-running tasks on iOS and iPadOS")

    private func exportSandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)
        // One run at a time, so a second export cannot start while the first runs.
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=1\n")
        try sandbox.write("manifests.d/photos.manifest", """
            [Manifest]
            PermittedIdentifiers=com.example.photos.export com.example.photos.export.*
            BackgroundModes=continued

            """)
        try sandbox.write("jobs.d/export.job", """
            [Job]
            Identifier=com.example.photos.export
            Kind=continued
            Exec=\(Binaries.directory)/photos-export\(Self.sanitizerOptions)
            Environment=PHOTOS_EXPORT_COUNT=20 PHOTOS_EXPORT_SECONDS_PER_PHOTO=0.05

            """)
        return sandbox
    }

    @Test func aContinuedExportReportsItsProgressAndTitleAndAFailStrategyIsRefusedWhileItRuns() throws {
        let sandbox = try exportSandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        let events = try EventSubscriber(socket: sandbox.socketPath,
                                         filter: ["kinds": ["run-started", "run-title", "run-subtitle", "run-progress", "run-ended", "request-queued"]])
        let app = Binaries.directory + "/photos-export"
        let socket = ["AGENTD_SOCKET": sandbox.socketPath]
        let holidays = try runCommand(app, ["Holidays"], environment: socket)
        #expect(holidays.status == 0, "\(holidays.stdout)\(holidays.stderr)")
        #expect(holidays.stdout.contains("submitted the export of Holidays"))
        try agent.waitForLog("run r000001 of com.example.photos.export.Holidays started (submitted")
        // One run at a time (MaxConcurrent=1): `.fail` is refused while Holidays runs, `.queue` waits.
        let failing = try runCommand(app, ["Birthdays", "--fail"], environment: socket)
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("could not start the export of Birthdays now: BGTaskScheduler.Error(immediateRunIneligible)"),
                "\(failing.stdout)")
        // The advice names the app's spelling too, not agentctl's alone.
        #expect(failing.stdout.contains(".queue in BackgroundTasks"), "\(failing.stdout)")
        let queued = try runCommand(app, ["Birthdays"], environment: socket)
        #expect(queued.status == 0, "\(queued.stdout)")

        let seen = try events.events { $0["type"] as? String == "run-ended" && $0["runID"] as? String == "r000001" }
        let ofHolidays = seen.filter { $0["runID"] as? String == "r000001" }
        #expect(ofHolidays.contains { $0["type"] as? String == "run-title" && $0["title"] as? String == "Exporting Holidays" })
        #expect(ofHolidays.contains { $0["type"] as? String == "run-subtitle" && ($0["subtitle"] as? String)?.hasSuffix(" of 20") == true })
        let last = ofHolidays.last { $0["type"] as? String == "run-progress" }
        #expect(last?["completedUnitCount"] as? Int == 20 && last?["totalUnitCount"] as? Int == 20, "\(last ?? [:])")
        #expect(ofHolidays.last?["stopReason"] as? String == "success")
        #expect(seen.contains { $0["type"] as? String == "request-queued" && $0["identifier"] as? String == "com.example.photos.export.Birthdays" })
        try agent.waitForLog("[com.example.photos.export.Holidays r000001] exported 20 photos of Holidays")
        try agent.waitForLog("run r000002 of com.example.photos.export.Birthdays started (submitted")
        try agent.waitForLog("run r000002 of com.example.photos.export.Birthdays ended: success")
    }

    @Test func cancellingAContinuedExportReachesItsExpirationHandler() throws {
        let sandbox = try exportSandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        let events = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-progress"]])
        let socket = ["AGENTD_SOCKET": sandbox.socketPath]
        #expect(try runCommand(Binaries.directory + "/photos-export", ["Holidays"], environment: socket).status == 0)
        _ = try events.events { ($0["completedUnitCount"] as? Int ?? 0) >= 2 }
        #expect(try agent.ctl("cancel", "com.example.photos.export.Holidays").status == 0)
        let stopped = try agent.waitForLog("export of Holidays stopped after ")
        #expect(!stopped.contains("after 20 of"), "\(stopped)")
        let ended = try agent.waitForLog("run r000001 of com.example.photos.export.Holidays ended:")
        #expect(ended.contains("cancelled"), "\(ended)")
    }

    // MARK: a background download (Apple's "Downloading files in the background")

    @Test(.enabled(if: NginxServer.available, "nginx is not installed (apt-get install nginx; install-deps.sh does)"))
    func aDownloadThroughTheTransferPluginIsChainedIntoTheAppWithItsFile() throws {
        let server = try NginxServer()
        let feed = #"{"entries":[{"color":"red"},{"color":"green"},{"color":"blue"}]}"#
        try feed.write(toFile: server.files + "/feed.json", atomically: false, encoding: .utf8)
        chmod(server.files + "/feed.json", 0o644)
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)
        try sandbox.write("manifests.d/colorfeed.manifest",
                          "[Manifest]\nPermittedIdentifiers=com.example.colorfeed.*\nBackgroundModes=processing\n")
        try sandbox.write("jobs.d/download.job", """
            [Job]
            Identifier=com.example.colorfeed.download
            Kind=processing
            Exec=\(Binaries.transfer) \(server.url("feed.json")) feed.json\(Self.sanitizerOptions)
            OnSuccess=com.example.colorfeed.import

            """)
        try sandbox.write("jobs.d/import.job", """
            [Job]
            Identifier=com.example.colorfeed.import
            Kind=processing
            Exec=\(Binaries.directory)/colorfeed-download\(Self.sanitizerOptions)

            """)
        let agent = try AgentProcess(sandbox: sandbox)
        let app = try runCommand(Binaries.directory + "/colorfeed-download", [],
                                 environment: ["AGENTD_SOCKET": sandbox.socketPath, "COLORFEED_DOWNLOAD_SECONDS": "1"])
        #expect(app.status == 0, "\(app.stdout)\(app.stderr)")
        #expect(app.stdout.contains("scheduled com.example.colorfeed.download no earlier than 1 s from now"))
        let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        let request = pending.first { $0["identifier"] as? String == "com.example.colorfeed.download" }?["request"] as? [String: Any]
        #expect(request?["requiresNetwork"] as? String == "any", "\(pending)")

        try agent.waitForLog("run r000001 of com.example.colorfeed.download started (requested")
        try agent.waitForLog("run r000001 of com.example.colorfeed.download ended: success")
        try agent.waitForLog("run r000002 of com.example.colorfeed.import started (chained")
        let downloaded = sandbox.stateDirectory + "/jobs/com.example.colorfeed.download/feed.json"
        try agent.waitForLog("imported 3 entries (\(feed.utf8.count) bytes) from \(downloaded)")
        try agent.waitForLog("run r000002 of com.example.colorfeed.import ended: success")
        let kept = try String(contentsOfFile: sandbox.stateDirectory + "/jobs/com.example.colorfeed.import/feed.json", encoding: .utf8)
        #expect(kept == feed)
    }

    // MARK: under the per-user agent

    @Test func theRefreshReschedulesItselfUnderThePerUserAgent() throws {
        let session = try UserSession(user: try TestUser())
        try session.write(session.configDirectory + "/manifests.d/colorfeed.manifest",
                          "[Manifest]\nPermittedIdentifiers=com.example.colorfeed.*\nBackgroundModes=refresh processing\n")
        try session.write(session.configDirectory + "/jobs.d/refresh.job", """
            [Job]
            Identifier=com.example.colorfeed.refresh
            Kind=refresh
            Exec=\(Binaries.directory)/colorfeed-refresh\(Self.sanitizerOptions)
            Environment=COLORFEED_REFRESH_SECONDS=1

            """)
        let agent = try UserAgent(session)
        defer { agent.stop() }
        // The app as the user, in the session: no AGENTD_SOCKET, $XDG_RUNTIME_DIR/agentd.sock by rule.
        let first = try runCommand("/usr/bin/setpriv", session.user.setpriv + [Binaries.directory + "/colorfeed-refresh"],
                                   environment: session.environment.merging(["COLORFEED_REFRESH_SECONDS": "1"]) { $1 })
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("scheduled com.example.colorfeed.refresh"), "\(first.stdout)")
        // Each run reaches the user's agent through the AGENTD_SOCKET it is given.
        for run in 1...3 {
            try agent.waitForLog("run r00000\(run) of com.example.colorfeed.refresh started (requested")
            try agent.waitForLog("refresh \(run) done; next no earlier than 1 s from now")
        }
        try agent.waitForLog("run r000003 of com.example.colorfeed.refresh ended: success")
        // Run 3's request for the next is pending — or, 1 s on, already launched as run 4 (on a
        // slow machine the launch can come before pending is asked).
        let pending = try session.ctl("pending", "--json")
        let waiting = try json(pending.stdout) as? [[String: Any]] ?? []
        let requested = waiting.contains { $0["identifier"] as? String == "com.example.colorfeed.refresh" && $0["request"] != nil }
        if !requested {
            try agent.waitForLog("run r000004 of com.example.colorfeed.refresh started (requested")
        }
    }

    /// The app as the user in their session: no AGENTD_SOCKET, `$XDG_RUNTIME_DIR/agentd.sock`
    /// by rule (DESIGN §13).
    private func asUser(_ session: UserSession, _ example: String, _ arguments: [String] = [],
                        _ extra: [String: String] = [:]) throws -> CommandResult {
        try runCommand("/usr/bin/setpriv", session.user.setpriv + [Binaries.directory + "/" + example] + arguments,
                       environment: session.environment.merging(extra) { $1 })
    }

    @Test func aContinuedExportRunsUnderThePerUserAgent() throws {
        let session = try UserSession(user: try TestUser())
        try session.write(session.configDirectory + "/manifests.d/photos.manifest", """
            [Manifest]
            PermittedIdentifiers=com.example.photos.export com.example.photos.export.*
            BackgroundModes=continued

            """)
        try session.write(session.configDirectory + "/jobs.d/export.job", """
            [Job]
            Identifier=com.example.photos.export
            Kind=continued
            Exec=\(Binaries.directory)/photos-export\(Self.sanitizerOptions)
            Environment=PHOTOS_EXPORT_COUNT=5 PHOTOS_EXPORT_SECONDS_PER_PHOTO=0.02
            Notify=no

            """)
        let agent = try UserAgent(session)
        defer { agent.stop() }
        let app = try asUser(session, "photos-export", ["Holidays"])
        #expect(app.status == 0, "\(app.stdout)\(app.stderr)")
        try agent.waitForLog("run r000001 of com.example.photos.export.Holidays started (submitted")
        try agent.waitForLog("exported 5 photos of Holidays")
        try agent.waitForLog("run r000001 of com.example.photos.export.Holidays ended: success")
    }

    @Test func anExpirationReachesItsHandlerUnderThePerUserAgent() throws {
        let session = try UserSession(user: try TestUser())
        try session.write(session.configDirectory + "/manifests.d/colorfeed.manifest",
                          "[Manifest]\nPermittedIdentifiers=com.example.colorfeed.*\nBackgroundModes=refresh processing\n")
        try session.write(session.configDirectory + "/jobs.d/db-cleaning.job", """
            [Job]
            Identifier=com.example.colorfeed.db-cleaning
            Kind=processing
            Exec=\(Binaries.directory)/colorfeed-db-cleaning\(Self.sanitizerOptions)
            GracePeriod=5s

            """)
        let agent = try UserAgent(session)
        defer { agent.stop() }
        let started = try session.ctl("run", "com.example.colorfeed.db-cleaning")
        #expect(started.status == 0, "\(started.stdout)\(started.stderr)")
        try agent.waitForLog("cleaning entries 0 to 600")
        #expect(try session.ctl("cancel", "com.example.colorfeed.db-cleaning").status == 0)
        try agent.waitForLog("expirationHandler: stopped at entry ")
        let ended = try agent.waitForLog("run r000001 of com.example.colorfeed.db-cleaning ended:")
        #expect(ended.contains("cancelled"), "\(ended)")
    }

    @Test(.enabled(if: NginxServer.available, "nginx is not installed (apt-get install nginx; install-deps.sh does)"))
    func aDownloadIsChainedIntoTheAppUnderThePerUserAgent() throws {
        let server = try NginxServer()
        let feed = #"{"entries":[{"color":"red"},{"color":"green"}]}"#
        try feed.write(toFile: server.files + "/feed.json", atomically: false, encoding: .utf8)
        chmod(server.files + "/feed.json", 0o644)
        let session = try UserSession(user: try TestUser())
        try session.write(session.configDirectory + "/manifests.d/colorfeed.manifest",
                          "[Manifest]\nPermittedIdentifiers=com.example.colorfeed.*\nBackgroundModes=processing\n")
        try session.write(session.configDirectory + "/jobs.d/download.job", """
            [Job]
            Identifier=com.example.colorfeed.download
            Kind=processing
            Exec=\(Binaries.transfer) \(server.url("feed.json")) feed.json\(Self.sanitizerOptions)
            OnSuccess=com.example.colorfeed.import

            """)
        try session.write(session.configDirectory + "/jobs.d/import.job", """
            [Job]
            Identifier=com.example.colorfeed.import
            Kind=processing
            Exec=\(Binaries.directory)/colorfeed-download\(Self.sanitizerOptions)

            """)
        let agent = try UserAgent(session)
        defer { agent.stop() }
        let app = try asUser(session, "colorfeed-download", [], ["COLORFEED_DOWNLOAD_SECONDS": "1"])
        #expect(app.status == 0, "\(app.stdout)\(app.stderr)")
        try agent.waitForLog("run r000001 of com.example.colorfeed.download ended: success")
        try agent.waitForLog("run r000002 of com.example.colorfeed.import started (chained")
        try agent.waitForLog("imported 2 entries (\(feed.utf8.count) bytes)")
        try agent.waitForLog("run r000002 of com.example.colorfeed.import ended: success")
    }
}
