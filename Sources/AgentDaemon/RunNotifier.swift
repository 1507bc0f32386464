// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem

/// Shows each continued run of the per-user agent in a desktop notification: from the job's app
/// (`Description=`, `Icon=`, `DesktopEntry=`, else its manifest's), summary the run's title, body
/// its subtitle, the percentage in the `value` hint, replaced in place at most once a second, a
/// "Cancel" action that cancels the run, and a last notification with the result. A job with
/// `Notify=no`, or a submission made with `--no-notify`, shows none.
///
/// The rules a person sees (issue 29):
/// - Cancel is never the default action: the progress notification's default action (a click,
///   dunst's middle click) dismisses it, as closing it does.
/// - Dismissed (closed by the user, `NotificationClosed` reason 2) stays dismissed for the run:
///   no more progress; the result still shows, as a new notification.
/// - A success shows its `RESULT=`, with an "Open" action (also the default) when that is an
///   absolute path or a URL (`OpenableResult`): `xdg-open` it. Any other end but a cancel shows the
///   run's last `STATUS=` with critical urgency.
///
/// Fed in-process by the `EventBus`; its other dependencies are the notification client, the
/// loop (for the once-a-second spacing), the app of a launch, a way to cancel a run, a way to
/// open a result and a way to log. With no session bus or no notification server it says so
/// once and the runs go on as before.
final class RunNotifier {
    static let minimumSpacing: Duration = .seconds(1)
    static let cancelAction = DesktopNotification.Action(key: "cancel", label: "Cancel")
    /// The specification's default action (a click on the notification); for a live run it only
    /// dismisses, so a habit click never cancels work.
    static let dismissAction = DesktopNotification.Action(key: "default", label: "Dismiss")
    static let openAction = DesktopNotification.Action(key: "open", label: "Open")
    static let openByDefault = DesktopNotification.Action(key: "default", label: "Open")
    /// Finished notifications whose Open may still be pressed; the oldest is forgotten first.
    static let keptOpenables = 16
    /// The most of a `STATUS=` or `RESULT=` a notification body shows.
    static let detailLimit = 400

    /// One run's notification.
    private struct Shown {
        var summary: String
        var subtitle: String?
        var percent: Int?
        var app: AppIdentity
        /// The run's last `STATUS=`.
        var status: String?
        /// The server's id (0 until the first `Notify` is answered, and again once it was closed).
        var id: UInt32 = 0
        /// A `Notify` awaits its answer: changes wait for it (they must replace its id).
        var inFlight = false
        /// Changed since the last `Notify`.
        var dirty = false
        var lastSent: MonotonicInstant?
        var timer: TimerToken?
        /// The user dismissed the progress notification: nothing more until the result.
        var dismissed = false
        /// Set when the run ended: the last notification.
        var final: FinalNotification?
    }

    private let client: DesktopNotifications
    private let loop: EventLoop
    private let appOf: (LaunchOrder) -> AppIdentity
    private let cancelRun: (String) -> Void
    private let open: (String) -> Void
    private let log: (String) -> Void
    private var shown: [String: Shown] = [:]
    /// Notification id → live run, for Cancel and dismissal.
    private var runsByNotification: [UInt32: String] = [:]
    /// Notification id → what its Open opens, for shown results (oldest first).
    private var openables: [(id: UInt32, target: OpenableResult)] = []
    /// The problem last logged; logged again only after a notification was shown meanwhile.
    private var loggedProblem: String?
    /// Where live runs' notification ids outlive this agent (nil: nowhere).
    var ledger: NotificationLedger?
    /// How the last notification went, for `status`: nil before the first.
    private(set) var lastOutcome: (run: String, failure: String?)?

    init(client: DesktopNotifications, loop: EventLoop, appOf: @escaping (LaunchOrder) -> AppIdentity,
         cancelRun: @escaping (String) -> Void, open: @escaping (String) -> Void, log: @escaping (String) -> Void) {
        self.client = client
        self.loop = loop
        self.appOf = appOf
        self.cancelRun = cancelRun
        self.open = open
        self.log = log
        client.onAction = { [weak self] id, key in self?.actionInvoked(id, key) }
        client.onClosed = { [weak self] id, reason in self?.closed(id, reason) }
    }

    /// Whether a launch is shown: continued, `Notify=` not off, not submitted with `--no-notify`.
    static func wantsNotification(_ order: LaunchOrder) -> Bool {
        order.job.kind == .continued && order.job.notify && order.submission?.notify != false
    }

    func handle(_ event: AgentEvent, order: LaunchOrder?) {
        guard let run = event.runID, let kind = event.eventKind else { return }
        switch kind {
        case .runStarted:
            guard let order, Self.wantsNotification(order) else { return }
            shown[run] = Shown(summary: event.title ?? event.identifier ?? order.job.identifier.rawValue,
                               subtitle: event.subtitle, app: appOf(order))
            send(run)
        case .runProgress:
            guard let fraction = event.progress else { return }
            update(run) { $0.percent = Int((max(0, min(1, fraction)) * 100).rounded(.down)) }
        case .runTitle:
            update(run) { $0.summary = event.title ?? $0.summary }
        case .runSubtitle:
            update(run) { $0.subtitle = event.subtitle }
        case .runStatus:
            // Not shown while the run lasts (the body is the subtitle); a failure shows it.
            shown[run]?.status = event.status
        case .runEnded:
            // The bus publishes this agent's own reasons: always known here.
            guard let stop = event.stopReason?.known else { return }
            let status = event.status ?? shown[run]?.status
            update(run) {
                $0.final = FinalNotification(stopReason: stop, status: status, result: event.result)
            }
        default:
            break
        }
    }

    private func update(_ run: String, _ change: (inout Shown) -> Void) {
        guard var entry = shown[run] else { return }
        let before = (entry.summary, entry.subtitle, entry.percent, entry.final)
        change(&entry)
        guard (entry.summary, entry.subtitle, entry.percent, entry.final) != before else { return }
        entry.dirty = true
        shown[run] = entry
        send(run)
    }

    /// Sends the run's notification now, or when the last one is answered, or a second after
    /// the last one (the result goes at once). A dismissed run sends only its result.
    private func send(_ run: String) {
        guard var entry = shown[run], !entry.inFlight else { return }
        if entry.dismissed && entry.final == nil { return }
        let now = loop.clock.monotonic
        if entry.final == nil, let last = entry.lastSent, now < last + Self.minimumSpacing {
            if entry.timer == nil {
                entry.timer = loop.schedule(at: last + Self.minimumSpacing) { [weak self] in
                    self?.shown[run]?.timer = nil
                    self?.send(run)
                }
                shown[run] = entry
            }
            return
        }
        if let timer = entry.timer { loop.cancel(timer) }
        entry.timer = nil
        entry.inFlight = true
        entry.dirty = false
        entry.lastSent = now
        shown[run] = entry
        let final = entry.final
        client.show(notification(for: entry), replacing: entry.id) { [weak self] answer in
            self?.answered(run, answer, final: final)
        }
    }

    private func notification(for entry: Shown) -> DesktopNotification {
        var notification: DesktopNotification
        if let final = entry.final {
            var actions: [DesktopNotification.Action] = []
            if final.openable != nil { actions = [Self.openByDefault, Self.openAction] }
            notification = DesktopNotification(summary: entry.summary, body: final.body, actions: actions,
                                               urgency: final.isFailure ? .critical : .normal)
        } else {
            // Never expires while the run lasts: it is the run's window, and its Cancel button.
            notification = DesktopNotification(summary: entry.summary, body: entry.subtitle ?? "", percent: entry.percent ?? 0,
                                               actions: [Self.dismissAction, Self.cancelAction], expireTimeout: 0,
                                               urgency: .normal)
        }
        notification.appName = entry.app.name
        notification.icon = entry.app.icon
        notification.desktopEntry = entry.app.desktopEntry
        return notification
    }

    private func answered(_ run: String, _ answer: Result<UInt32, NotificationFailure>, final: FinalNotification?) {
        guard var entry = shown[run] else { return }
        entry.inFlight = false
        lastOutcome = (run, answer.failureText)
        switch answer {
        case .success(let id):
            loggedProblem = nil
            if let final {
                runsByNotification[entry.id] = nil
                runsByNotification[id] = nil
                ledger?.forget(run)
                if let target = final.openable { keepOpenable(id, target) }
                if entry.final == final {
                    shown[run] = nil
                    return
                }
                // Unlikely: the result changed after it was sent; send the newer one.
                entry.id = id
                shown[run] = entry
                send(run)
                return
            }
            if entry.dismissed {
                // Dismissed while this update was on its way: the server showed it again.
                client.close(id)
                entry.id = 0
                shown[run] = entry
                if entry.final != nil { send(run) }
                return
            }
            if entry.id != id { runsByNotification[entry.id] = nil }
            entry.id = id
            runsByNotification[id] = run
            ledger?.record(run, id)
            shown[run] = entry
            if entry.dirty || entry.final != nil { send(run) }
        case .failure(let failure):
            // This run goes on without a notification; the next run tries again.
            runsByNotification[entry.id] = nil
            ledger?.forget(run)
            if let timer = entry.timer { loop.cancel(timer) }
            shown[run] = nil
            if loggedProblem != failure.description {
                loggedProblem = failure.description
                log("desktop notifications: \(failure); runs go on without them (start a notification server such as dunst, or set Notify=no in the job)")
            }
        }
    }

    /// A run an earlier agent showed and did not end (it was killed): its notification `id`
    /// now says so, as a run ended `agent-restart` shows, with no Cancel for a run that is gone.
    func showEnded(_ run: String, replacing id: UInt32, summary: String, app: AppIdentity) {
        var entry = Shown(summary: summary, subtitle: nil, app: app)
        entry.id = id
        entry.final = FinalNotification(stopReason: .agentRestart, status: nil, result: nil)
        shown[run] = entry
        send(run)
    }

    private func keepOpenable(_ id: UInt32, _ target: OpenableResult) {
        openables.removeAll { $0.id == id }
        openables.append((id, target))
        if openables.count > Self.keptOpenables { openables.removeFirst(openables.count - Self.keptOpenables) }
    }

    /// A notification closed: a live run's stays dismissed when the user closed it; any other
    /// close only forgets its id (the next update is a new notification).
    private func closed(_ id: UInt32, _ reason: NotificationCloseReason) {
        openables.removeAll { $0.id == id }
        guard let run = runsByNotification.removeValue(forKey: id), var entry = shown[run], entry.id == id else { return }
        entry.id = 0
        if reason == .dismissedByUser && entry.final == nil {
            entry.dismissed = true
            if let timer = entry.timer { loop.cancel(timer) }
            entry.timer = nil
            log("desktop notifications: run \(run)'s notification was dismissed: no more progress, the result will show")
        }
        shown[run] = entry
    }

    private func actionInvoked(_ id: UInt32, _ key: String) {
        if let run = runsByNotification[id], let entry = shown[run], entry.final == nil {
            switch key {
            case Self.cancelAction.key:
                log("desktop notifications: Cancel pressed for run \(run): cancelling it")
                cancelRun(run)
            case Self.dismissAction.key:
                // The default action of a live run: dismissed, as a close by the user is.
                client.close(id)
                closed(id, .dismissedByUser)
            default:
                break
            }
            return
        }
        guard key == Self.openAction.key || key == Self.openByDefault.key,
              let target = openables.first(where: { $0.id == id })?.target else { return }
        log("desktop notifications: Open pressed: \(DesktopOpener.program) \(target.target)")
        open(target.target)
    }
}

/// What a run's last notification says: the body, whether it is a failure (critical urgency) and
/// what its Open action opens.
struct FinalNotification: Equatable {
    var body: String
    var isFailure: Bool
    var openable: OpenableResult?

    init(stopReason stop: StopReason, status: String?, result: String?) {
        var body = NotificationText.result(stopReason: stop)
        switch stop {
        case .success:
            isFailure = false
            openable = OpenableResult(result)
            if let result, !result.isEmpty { body += "\n" + NotificationText.cut(result) }
        case .cancelled, .agentRestart, .skipped:
            isFailure = false
        default:
            isFailure = true
            if let status, !status.isEmpty { body += "\n" + NotificationText.cut(status) }
        }
        self.body = body
    }
}

/// The words a notification shows.
enum NotificationText {
    /// The first line of the last notification's body for a stop reason (DESIGN §7).
    static func result(stopReason: StopReason) -> String {
        switch stopReason {
        case .success: "Done"
        case .cancelled: "Cancelled"
        case .agentRestart: "Stopped: the agent restarted"
        case .failure(let status): "Failed (exit \(status))"
        case .expired(let why): "Stopped: expired (\(why.rawValue))"
        case .crashed(let signal): "Crashed (signal \(signal))"
        case .spawnFailed(let why): "Could not start (\(why))"
        case .skipped: "Ended: \(stopReason)"
        }
    }

    /// At most `RunNotifier.detailLimit` characters, marked with `…` when cut.
    static func cut(_ text: String) -> String {
        text.count <= RunNotifier.detailLimit ? text : String(text.prefix(RunNotifier.detailLimit - 1)) + "…"
    }
}

extension Result<UInt32, NotificationFailure> {
    /// Why a `Notify` was not shown, or nil when it was.
    var failureText: String? {
        if case .failure(let failure) = self { return failure.description }
        return nil
    }
}
