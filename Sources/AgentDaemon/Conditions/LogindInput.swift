// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem

/// The sleep input and the inhibitor locks of DESIGN §6, through systemd-logind
/// (`LogindMonitor`): whether the machine is about to sleep (`PrepareForSleep`), the sleep
/// *delay* inhibitor while the scheduler wants it (`Scheduler.wantsSleepLock`), and an idle
/// *block* inhibitor per run that keeps the desktop awake (`Scheduler.idleLockRuns`).
///
/// The scheduler decides; this only follows: ``follow(wantsSleepLock:idleRuns:)`` after every
/// scheduler event takes or drops locks so that logind holds what the scheduler wants (a lock
/// whose answer arrives after it stopped being wanted is released at once). Without logind
/// (no bus, nothing owning `org.freedesktop.login1`, a simulated machine without
/// `--system-bus`) nothing is taken, the machine is never "about to sleep", and the source
/// line of `status` says so. Loop-thread only.
final class LogindInput {
    /// logind said PrepareForSleep(true) and not yet (false).
    private(set) var sleeping = false
    /// The `logind` line of `status`'s sources.
    private(set) var source = InputSource(name: "logind", state: .unavailable, detail: "not started")

    private var monitor: LogindMonitor?
    private var started = false
    private let scope: LogindMonitor.SessionScope

    init(scope: LogindMonitor.SessionScope) {
        self.scope = scope
    }

    /// The user's presence for `RequiresIdle=` (`.unknown`: PSI alone; `.checking` until logind
    /// has answered).
    var presence: UserPresence {
        guard let monitor else { return .unknown }
        return monitor.presenceSettled ? monitor.presence : .checking
    }

    /// `active`, `away since … (2 sessions idle or locked)`, `unknown`.
    func presenceText(_ presence: UserPresence) -> String {
        switch presence {
        case .unknown: return "unknown"
        case .checking: return "not read yet"
        case .active: return "active"
        case .away(let since):
            let count = monitor?.sessionCount ?? 0
            return "away since \(LocalClockText.text(since.seconds, now: Double(WallClock.now()) / 1_000_000_000)) (\(count) session\(count == 1 ? "" : "s") idle or locked)"
        }
    }

    /// What RequiresIdle= is judged by, for `status`.
    var idleSourceText: String {
        guard let monitor else { return "PSI alone (logind \(source.detail ?? "not consulted"))" }
        if monitor.status != .watching(logind: true) { return "PSI alone (\(monitor.status))" }
        if monitor.sessionCount == 0 {
            return scope == .seat ? "PSI alone (no session with a seat: a server)" : "PSI alone (no session of this user with a seat)"
        }
        return "logind sessions and PSI"
    }
    private var log: (String) -> Void = { _ in }
    private var onChange: () -> Void = {}
    /// PrepareForSleep, before the conditions change (the events stream says it first).
    var onSleep: (Bool) -> Void = { _ in }

    private var sleepLock: InhibitorLock?
    private var sleepLockPending = false
    private var wantsSleepLock = false
    /// A refused Inhibit is not asked again until logind's status changes.
    private var sleepLockRefused = false

    private struct IdleLock {
        var title: String
        var lock: InhibitorLock?
        var pending = false
        var refused = false
    }
    private var idleLocks: [RunID: IdleLock] = [:]

    /// How long logind waits for the delay inhibitor before it suspends anyway.
    var inhibitDelayMax: Duration { monitor?.inhibitDelayMax ?? LogindMonitor.defaultInhibitDelay }

    /// Follows logind through `systemBus` (nil: not consulted, a simulated machine).
    func start(loop: EventLoop, systemBus: SystemBus?, log: @escaping (String) -> Void,
               onChange: @escaping () -> Void) {
        self.log = log
        guard let systemBus else {
            source = InputSource(name: "logind", state: .unavailable, detail: "not consulted on a simulated machine")
            return
        }
        let monitor = LogindMonitor(loop: loop, systemBus: systemBus, scope: scope)
        monitor.onPresenceChange = { [unowned self] _ in self.onChange() }
        monitor.onPrepareForSleep = { [unowned self] going in self.prepareForSleep(going) }
        monitor.onStatusChange = { [unowned self] status in self.statusChanged(status) }
        self.monitor = monitor
        statusChanged(monitor.start())
        self.onChange = onChange
        started = true
    }

    private func prepareForSleep(_ going: Bool) {
        guard going != sleeping else { return }
        sleeping = going
        log(going ? "sleep: logind says the machine is about to sleep" : "sleep: the machine resumed")
        onSleep(going)
        onChange()
    }

    private func statusChanged(_ status: LogindMonitor.Status) {
        let before = source.state
        defer {
            // Said when it changes after the start (ConditionMonitor names it once at start).
            if started, source.state != before {
                log("inputs: logind \(source.state)\(source.detail.map { ": \($0)" } ?? "")")
            }
        }
        switch status {
        case .watching(logind: true):
            source = InputSource(name: "logind", state: .live,
                                 detail: "\(status); InhibitDelayMaxUSec \(TimeSpan.format(inhibitDelayMax))")
        case .stopped, .connecting:
            source = InputSource(name: "logind", state: .live, detail: status.description)
        case .watching(logind: false), .unavailable:
            let why: String
            if case .unavailable(let reason) = status {
                why = reason
            } else {
                why = status.description
            }
            source = InputSource(name: "logind", state: .unavailable,
                                 detail: "\(why); no sleep inhibitor, runs sleep with the machine")
            // Without logind no PrepareForSleep(false) is coming: do not stay "about to sleep".
            if sleeping {
                sleeping = false
                onChange()
            }
        }
        if status != .watching(logind: true) {
            // Locks of a logind that went are worth nothing: the next one is asked anew (after
            // the bus came back too). An answer still pending on a lost connection never comes.
            sleepLock?.release()
            sleepLock = nil
            if !isConnected(status) { sleepLockPending = false }
            for id in idleLocks.keys {
                idleLocks[id]?.lock?.release()
                idleLocks[id]?.lock = nil
                if !isConnected(status) { idleLocks[id]?.pending = false }
            }
        }
        // logind came (or went): ask again for what was refused.
        sleepLockRefused = false
        for id in idleLocks.keys { idleLocks[id]?.refused = false }
        sync()
    }

    /// Whether the monitor is on a bus connection (its calls may still be answered).
    private func isConnected(_ status: LogindMonitor.Status) -> Bool {
        switch status {
        case .connecting, .watching: return true
        case .stopped, .unavailable: return false
        }
    }

    /// After every scheduler event: hold exactly the locks the scheduler wants.
    func follow(wantsSleepLock: Bool, idleRuns: [(RunID, String)]) {
        if wantsSleepLock != self.wantsSleepLock {
            self.wantsSleepLock = wantsSleepLock
            sleepLockRefused = false
        }
        let wanted = Set(idleRuns.map(\.0))
        for (id, entry) in idleLocks where !wanted.contains(id) {
            if let lock = entry.lock {
                lock.release()
                log("sleep: idle inhibitor released (\(entry.title))")
            }
            idleLocks[id] = nil
        }
        for (id, title) in idleRuns where idleLocks[id] == nil {
            idleLocks[id] = IdleLock(title: title)
        }
        sync()
    }

    private func sync() {
        guard let monitor else { return }
        if !wantsSleepLock, let lock = sleepLock {
            lock.release()
            sleepLock = nil
            log(sleeping ? "sleep: delay inhibitor released: every run is frozen or gone"
                         : "sleep: delay inhibitor released: no run is live")
        }
        if wantsSleepLock, sleepLock == nil, !sleepLockPending, !sleepLockRefused, monitor.status == .watching(logind: true) {
            sleepLockPending = true
            monitor.inhibit(what: "sleep", who: "agentd", why: "background runs are stopped or frozen before sleep",
                            mode: "delay") { [unowned self] result in
                self.sleepLockPending = false
                switch result {
                case .success(let lock):
                    guard self.wantsSleepLock, self.sleepLock == nil else {
                        lock.release()
                        return
                    }
                    self.sleepLock = lock
                    self.log("sleep: delay inhibitor taken: runs are live")
                case .failure(let error):
                    self.sleepLockRefused = true
                    self.log("sleep: logind refused the delay inhibitor (\(error)); runs sleep with the machine")
                }
                self.sync()
            }
        }
        for (id, entry) in idleLocks where entry.lock == nil && !entry.pending && !entry.refused
            && monitor.status == .watching(logind: true) {
            idleLocks[id]?.pending = true
            monitor.inhibit(what: "idle", who: "agentd", why: entry.title, mode: "block") { [unowned self] result in
                guard self.idleLocks[id] != nil else {
                    if case .success(let lock) = result { lock.release() }
                    return
                }
                self.idleLocks[id]?.pending = false
                switch result {
                case .success(let lock):
                    self.idleLocks[id]?.lock = lock
                    self.log("sleep: idle inhibitor taken for run \(id) (\(entry.title))")
                case .failure(let error):
                    self.idleLocks[id]?.refused = true
                    self.log("sleep: logind refused an idle inhibitor for run \(id) (\(error))")
                }
            }
        }
    }

    /// `sleep delay (background runs…)`, `idle block (Exporting Photos)`: the locks held, for `status`.
    var heldInhibitors: [String] {
        var held: [String] = []
        if let lock = sleepLock, lock.isHeld { held.append("sleep delay") }
        for id in idleLocks.keys.sorted() {
            if let entry = idleLocks[id], entry.lock?.isHeld == true { held.append("idle block (\(entry.title))") }
        }
        return held
    }
}
