// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing

/// Issue 29 item 7: the per-user agent's notifications name their app, stay dismissed, say why a
/// run failed and open what a run made — against a private session bus with the stand-in server.
@Suite(.serialized) struct NotificationAppTests {
    private func session(bus: SessionBus) throws -> UserSession {
        let session = try UserSession(user: try TestUser())
        session.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        return session
    }

    private func job(_ session: UserSession, _ identifier: String, _ body: String, extra: String = "") throws {
        let name = identifier.replacingOccurrences(of: ".", with: "-")
        let plugin = try session.plugin(name, body)
        try session.write(session.configDirectory + "/jobs.d/\(name).job",
                          "[Job]\nIdentifier=\(identifier)\nKind=continued\nExec=\(plugin)\n\(extra)")
    }

    /// Reports progress twenty times a second until `file` exists, then a second more, then
    /// says `RESULT=` and exits 0.
    static func pluginUntil(_ file: String, result: String = "") -> String {
        """
        i=0
        while [ ! -e '\(file)' ]; do i=$((i+1)); echo "PROGRESS=$((i % 90))%"; sleep 0.05; done
        for j in $(seq 20); do echo "PROGRESS=$((90 + j / 4))%"; sleep 0.05; done
        echo finishing
        \(result.isEmpty ? "" : "echo 'RESULT=\(result)'")

        """
    }

    @Test func theAppIsNamedByTheJobItsManifestOrItsDesktopEntry() throws {
        let bus = try SessionBus()
        let server = try NotificationServerStandIn(bus: bus)
        let session = try session(bus: bus)
        try session.write(session.root + "/share/applications/org.example.Viewer.desktop", """
            [Desktop Entry]
            Type=Application
            Name[de]=Betrachter
            Name=Image Viewer
            Icon=org.example.Viewer
            [Desktop Action New]
            Name=Not this one

            """)
        let agent = try UserAgent(session)
        // A package's manifest names its app; one job of it names its own; a third job names only
        // a desktop entry, whose file gives the name and icon.
        try session.write(session.configDirectory + "/manifests.d/org.example.photos.manifest", """
            [Manifest]
            PermittedIdentifiers=org.example.photos.*
            BackgroundModes=continued
            Description=Photos
            Icon=/opt/photos/icon 1.png

            """)
        try job(session, "org.example.photos.export", "echo PROGRESS=1/1\n")
        try job(session, "org.example.photos.backup", "echo PROGRESS=1/1\n", extra: "Description=Backup\nIcon=drive-harddisk\n")
        try job(session, "local.viewer", "echo PROGRESS=1/1\n", extra: "DesktopEntry=org.example.Viewer\n")
        try job(session, "local.plain", "echo PROGRESS=1/1\n")
        for name in ["org.example.photos.export", "org.example.photos.backup", "local.viewer", "local.plain"] {
            try agent.waitForLog("registered \(name)")
        }
        #expect(!agent.logLines.contains { $0.contains("not enforced yet") }, "\(agent.logLines)")
        for (name, title) in [("org.example.photos.export", "Export"), ("org.example.photos.backup", "Backup run"),
                              ("local.viewer", "View"), ("local.plain", "Plain")] {
            let submitted = try session.ctl("--user", "submit", name, "--title", title, "--wait")
            #expect(submitted.status == 0, "\(submitted.stderr)")
        }
        func shown(_ title: String) throws -> NotificationServerStandIn.Call {
            try server.waitForNotify("the result of \(title)") { $0.summary == title && $0.body == "Done" }.call
        }
        let export = try shown("Export")
        #expect(export.appName == "Photos" && export.appIcon == "file:///opt/photos/icon%201.png" && export.desktopEntry.isEmpty,
                "the manifest's app, its icon path as a file URI: \(export)")
        let backup = try shown("Backup run")
        #expect(backup.appName == "Backup" && backup.appIcon == "drive-harddisk", "the job's own keys win: \(backup)")
        let viewer = try shown("View")
        #expect(viewer.appName == "Image Viewer" && viewer.appIcon == "org.example.Viewer" && viewer.desktopEntry == "org.example.Viewer",
                "the desktop entry's Name= and Icon=, and the hint: \(viewer)")
        let plain = try shown("Plain")
        #expect(plain.appName == "agentd" && plain.appIcon.isEmpty && plain.desktopEntry.isEmpty, "\(plain)")
        // Every notification of a run, progress too, names the same app.
        #expect(server.calls.filter { $0.summary == "View" }.allSatisfy { $0.appName == "Image Viewer" })
    }

    @Test func aNotificationTheUserDismissedStaysDismissedAndTheResultStillShows() throws {
        let bus = try SessionBus()
        let server = try NotificationServerStandIn(bus: bus)
        let session = try session(bus: bus)
        let agent = try UserAgent(session)
        try job(session, "local.export", Self.pluginUntil(session.home + "/stop"))
        try agent.waitForLog("registered local.export")
        #expect(try session.ctl("--user", "submit", "local.export", "--title", "Exporting").status == 0)
        let first = try server.waitForNotify("the run's first notification") { $0.replaces == 0 }
        let id = first.call.id
        // One update at least, then the user closes it.
        let update = try server.waitForNotify(after: first.index + 1, "an update") { $0.replaces == id }
        try server.dismiss(id)
        try agent.waitForLog("run r000001's notification was dismissed")
        let dismissedAt = (server.child.allLines.lastIndex(of: "dismissed \(id)") ?? 0) + 1
        // The plugin reports progress for another second (the agent would update twice a second
        // apart), then ends.
        try session.write(session.home + "/stop", "")
        try agent.waitForLog("] finishing")
        let final = try server.waitForNotify(after: update.index + 1, "the result") { $0.body == "Done" }
        #expect(final.call.replaces == 0, "the result is a new notification: the dismissed one is gone")
        let between = server.child.allLines[dismissedAt..<final.index].compactMap(NotificationServerStandIn.Call.init)
        #expect(between.isEmpty, "no progress after the dismissal: \(between)")
    }

    @Test func aFailureShowsTheRunsLastStatusWithCriticalUrgency() throws {
        let bus = try SessionBus()
        let server = try NotificationServerStandIn(bus: bus)
        let session = try session(bus: bus)
        let agent = try UserAgent(session)
        try job(session, "local.fetch", "echo PROGRESS=1/2\necho 'STATUS=connecting'\necho 'STATUS=server said <503>'\nexit 3\n")
        try job(session, "local.fine", "echo PROGRESS=1/1\necho STATUS=all good\n")
        try agent.waitForLog("registered local.fetch")
        try agent.waitForLog("registered local.fine")
        #expect(try session.ctl("--user", "submit", "local.fetch", "--title", "Fetching", "--wait").status != 0)
        #expect(try session.ctl("--user", "submit", "local.fine", "--title", "Fine", "--wait").status == 0)
        let failed = try server.waitForNotify("the failure") { $0.summary == "Fetching" && $0.body.hasPrefix("Failed") }.call
        // The stand-in prints the body's newline as a space; the body is markup, so < is escaped.
        #expect(failed.body == "Failed (exit 3) server said &lt;503&gt;", "\(failed)")
        #expect(failed.urgency == 2, "critical")
        #expect(failed.actions.isEmpty)
        let fine = try server.waitForNotify("the success") { $0.summary == "Fine" && $0.body == "Done" }.call
        #expect(fine.urgency == 1, "a success is of normal urgency")
        #expect(server.calls.filter { $0.summary == "Fetching" && $0.body != failed.body }.allSatisfy { $0.urgency == 1 },
                "progress is of normal urgency")
    }

    @Test func aSuccessShowsItsResultAndOpenRunsXdgOpenOnIt() throws {
        let bus = try SessionBus()
        let server = try NotificationServerStandIn(bus: bus)
        let session = try session(bus: bus)
        // An xdg-open stand-in first on the agent's PATH: it writes down its arguments.
        let bin = session.root + "/bin"
        let record = session.home + "/opened/args"
        try session.write(session.home + "/opened/.keep", "")
        try session.write(bin + "/xdg-open", "#!/bin/sh\nprintf '%s|' \"$@\" > \(record).tmp && mv \(record).tmp \(record)\n", mode: 0o755)
        session.extraEnvironment["PATH"] = bin + ":/usr/bin:/bin"
        let agent = try UserAgent(session)
        let made = session.home + "/Exports/holiday album.zip"
        try job(session, "local.export", "echo PROGRESS=1/1\necho 'RESULT=\(made)'\n")
        try job(session, "local.count", "echo PROGRESS=1/1\necho 'RESULT=3 photos exported'\n")
        try agent.waitForLog("registered local.export")
        try agent.waitForLog("registered local.count")
        #expect(try session.ctl("--user", "submit", "local.export", "--title", "Export", "--wait").status == 0)
        #expect(try session.ctl("--user", "submit", "local.count", "--title", "Count", "--wait").status == 0)
        let done = try server.waitForNotify("the export's result") { $0.summary == "Export" && $0.body.hasPrefix("Done") }.call
        #expect(done.body == "Done \(made)")
        #expect(done.actions == "default,Open,open,Open", "Open, also the default action")
        let count = try server.waitForNotify("the count's result") { $0.summary == "Count" && $0.body.hasPrefix("Done") }.call
        #expect(count.body == "Done 3 photos exported")
        #expect(count.actions.isEmpty, "a result that is neither a path nor a URL offers no Open")

        let opened = try #require(InotifyWaiter.directoryChanges(session.home + "/opened"))
        try server.invoke(done.id, "open")
        try agent.waitForLog("Open pressed: xdg-open \(made)")
        #expect(opened.waitUntil(seconds: 20) { FileManager.default.fileExists(atPath: record) }, "xdg-open ran")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == made + "|", "one argument, the path, spaces and all")
        // It ran as the agent's user.
        var info = stat()
        #expect(stat(record, &info) == 0 && info.st_uid == session.user.uid)
    }

    @Test func theDefaultActionOfARunningTaskNeverCancelsIt() throws {
        let bus = try SessionBus()
        let server = try NotificationServerStandIn(bus: bus)
        let session = try session(bus: bus)
        let agent = try UserAgent(session)
        try job(session, "local.export", Self.pluginUntil(session.home + "/stop"))
        try agent.waitForLog("registered local.export")
        #expect(try session.ctl("--user", "submit", "local.export", "--title", "Exporting").status == 0)
        let first = try server.waitForNotify("the run's first notification") { $0.replaces == 0 }
        #expect(first.call.actions.contains("cancel,Cancel"))
        // A click on it (the spec's "default" action, dunst's middle click) dismisses it…
        try server.invoke(first.call.id, "default")
        try agent.waitForLog("run r000001's notification was dismissed")
        // …and the run goes on to finish by itself.
        try session.write(session.home + "/stop", "")
        let final = try server.waitForNotify(after: first.index + 1, "the result") { $0.body == "Done" }
        #expect(final.call.urgency == 1)
        #expect(!agent.logLines.contains { $0.contains("Cancel pressed") })
        let history = try session.ctl("--user", "history", "local.export", "--json")
        let runs = try json(history.stdout) as? [[String: Any]] ?? []
        #expect(runs.first?["stopReason"] as? String == "success", "\(history.stdout)")
    }
}
