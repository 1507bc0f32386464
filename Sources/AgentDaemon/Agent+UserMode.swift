// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc

/// What `agentd --user` does beyond the system agent: the config skeleton on the
/// first start, and progress of continued runs in desktop notifications.
extension Agent {
    /// Creates `~/.config/agentd/` on the first start of the per-user agent. A failure is logged
    /// and the agent goes on (it watches the directory and reads it once it is there).
    func prepareUserMode() {
        guard options.userMode else { return }
        do {
            if let created = try UserSkeleton.createIfMissing(options.configDirectory) { log.notice(created) }
        } catch {
            log.error("cannot create the config directory: \(error) (create \(options.configDirectory) with manifests.d/ and jobs.d/ yourself, or fix its parent's permissions)")
        }
    }

    /// Starts following continued runs in desktop notifications (user agent only). Without a
    /// session bus it says so once; the agent runs as before.
    func startDesktopNotifications() {
        guard options.userMode else { return }
        guard let (address, present) = Self.sessionBusAddress() else {
            conditions.notificationsText = { "off: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set" }
            log.notice("desktop notifications off: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set (under systemd --user, run: systemctl --user import-environment DBUS_SESSION_BUS_ADDRESS, then restart agentd)")
            return
        }
        if !present {
            // A session bus started after the agent (no systemd --user, dbus started by the
            // session) is found there at a later run: each notification connects if need be.
            log.notice("desktop notifications: no session bus at \(address) yet; each continued run looks for it again")
        }
        let client = DesktopNotifications(loop: loop, address: .address(address))
        let runs = self.runs
        let log = self.log
        let catalogue = self.config
        let entries = DesktopEntryLookup(directories: options.applicationDirectories)
        let opener = DesktopOpener(loop: loop, searchPath: options.searchPath, log: { log.notice("desktop notifications: \($0)") })
        let notifier = RunNotifier(client: client, loop: loop, appOf: { order in
            let job = order.job
            let app = AppIdentity.of(job, manifest: catalogue.registry.governingManifest(of: job.identifier, kind: job.kind))
            return entries.complete(app)
        }, cancelRun: { text in
            if let run = RunID(parsing: text) { _ = runs.cancel(run) }
        }, open: { opener.open($0) }, log: { log.notice($0) })
        let ledger = NotificationLedger(path: FileSystem.parentDirectory(of: options.socketPath) + "/agentd-notifications")
        notifier.ledger = ledger
        let leftover = ledger.takeLeftover()
        for run in runs.recovered {
            guard let id = leftover[run.runID] else { continue }
            // The job's app, as the run showed it; a job removed meanwhile: the agent's name.
            let definition = Identifier(rawValue: run.job).flatMap { catalogue.registry.job($0)?.definition }
            let app = definition.map { job in
                entries.complete(AppIdentity.of(job, manifest: catalogue.registry.governingManifest(of: job.identifier, kind: job.kind)))
            } ?? AppIdentity()
            notifier.showEnded(run.runID, replacing: id, summary: run.title, app: app)
        }
        conditions.notificationsText = { [unowned notifier] in
            Self.notificationsText(notifier.lastOutcome, address: address)
        }
        // The bus holds the notifier for the agent's lifetime.
        events.observe { event, order in notifier.handle(event, order: order) }
        log.info("desktop notifications: continued runs are shown through org.freedesktop.Notifications on \(address)")
    }

    /// For `status`: how the last notification went, or where the next one will look.
    static func notificationsText(_ last: (run: String, failure: String?)?, address: String) -> String {
        if let last {
            guard let failure = last.failure else { return "on: last shown for run \(last.run)" }
            return "failing: \(failure) (run \(last.run)); the next continued run tries again"
        }
        // `unix:path=/run/user/1000/bus`, maybe with `,guid=…` after it.
        if address.hasPrefix("unix:path="),
           !sessionBusSocketExists(String(address.dropFirst("unix:path=".count).prefix { $0 != "," })) {
            return "waiting for a session bus at \(address) (each continued run looks for it)"
        }
        return "on: none shown yet (session bus \(address))"
    }

    /// `DBUS_SESSION_BUS_ADDRESS`, else the user bus socket systemd and dbus-user-session put
    /// at `$XDG_RUNTIME_DIR/bus` (libsystemd's rule for the user bus), and whether that socket is
    /// there now; nil with neither variable.
    static func sessionBusAddress() -> (address: String, present: Bool)? {
        if let value = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !value.isEmpty {
            return (value, true)
        }
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") else {
            return nil
        }
        let path = runtime + "/bus"
        return ("unix:path=" + path, sessionBusSocketExists(path))
    }

    static func sessionBusSocketExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }
}
