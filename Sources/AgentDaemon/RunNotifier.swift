// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem

/// Shows each continued run of the per-user agent in a desktop notification: summary
/// the run's title, body its subtitle, the percentage in the `value` hint, replaced in place at
/// most once a second, a "Cancel" action that cancels the run, and a last notification with the
/// result. A job with `Notify=no`, or a submission made with `--no-notify`, shows none.
///
/// Fed in-process by the `EventBus`; its only other dependencies are the notification client, the
/// loop (for the once-a-second spacing), a way to cancel a run and a way to log. With no session
/// bus or no notification server it says so once and the runs go on as before.
final class RunNotifier {
    static let minimumSpacing: Duration = .seconds(1)
    static let cancelAction = DesktopNotification.Action(key: "cancel", label: "Cancel")

    /// One run's notification.
    private struct Shown {
        var summary: String
        var subtitle: String?
        var percent: Int?
        /// The server's id (0 until the first `Notify` is answered).
        var id: UInt32 = 0
        /// A `Notify` awaits its answer: changes wait for it (they must replace its id).
        var inFlight = false
        /// Changed since the last `Notify`.
        var dirty = false
        var lastSent: MonotonicInstant?
        var timer: TimerToken?
        /// Set when the run ended: the last notification's body.
        var result: String?
    }

    private let client: DesktopNotifications
    private let loop: EventLoop
    private let cancelRun: (String) -> Void
    private let log: (String) -> Void
    private var shown: [String: Shown] = [:]
    /// Notification id → run, for the Cancel action.
    private var runsByNotification: [UInt32: String] = [:]
    /// The problem last logged; logged again only after a notification was shown meanwhile.
    private var loggedProblem: String?

    init(client: DesktopNotifications, loop: EventLoop, cancelRun: @escaping (String) -> Void,
         log: @escaping (String) -> Void) {
        self.client = client
        self.loop = loop
        self.cancelRun = cancelRun
        self.log = log
        client.onAction = { [weak self] id, key in self?.actionInvoked(id, key) }
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
                               subtitle: event.subtitle)
            send(run)
        case .runProgress:
            guard let fraction = event.progress else { return }
            update(run) { $0.percent = Int((max(0, min(1, fraction)) * 100).rounded(.down)) }
        case .runTitle:
            update(run) { $0.summary = event.title ?? $0.summary }
        case .runSubtitle:
            update(run) { $0.subtitle = event.subtitle }
        case .runEnded:
            update(run) { $0.result = NotificationText.result(stopReason: event.stopReason ?? "") }
        default:
            break
        }
    }

    private func update(_ run: String, _ change: (inout Shown) -> Void) {
        guard var entry = shown[run] else { return }
        let before = (entry.summary, entry.subtitle, entry.percent, entry.result)
        change(&entry)
        guard (entry.summary, entry.subtitle, entry.percent, entry.result) != before else { return }
        entry.dirty = true
        shown[run] = entry
        send(run)
    }

    /// Sends the run's notification now, or when the last one is answered, or a second after
    /// the last one (the result goes at once).
    private func send(_ run: String) {
        guard var entry = shown[run], !entry.inFlight else { return }
        let now = loop.clock.monotonic
        if entry.result == nil, let last = entry.lastSent, now < last + Self.minimumSpacing {
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
        let isFinal = entry.result != nil
        client.show(notification(for: entry), replacing: entry.id) { [weak self] answer in
            self?.answered(run, answer, final: isFinal)
        }
    }

    private func notification(for entry: Shown) -> DesktopNotification {
        if let result = entry.result {
            return DesktopNotification(summary: entry.summary, body: result)
        }
        // Never expires while the run lasts: it is the run's window, and its Cancel button.
        return DesktopNotification(summary: entry.summary, body: entry.subtitle ?? "", percent: entry.percent ?? 0,
                                   actions: [Self.cancelAction], expireTimeout: 0)
    }

    private func answered(_ run: String, _ answer: Result<UInt32, NotificationFailure>, final: Bool) {
        guard var entry = shown[run] else { return }
        entry.inFlight = false
        switch answer {
        case .success(let id):
            loggedProblem = nil
            if entry.id != id { runsByNotification[entry.id] = nil }
            entry.id = id
            runsByNotification[id] = run
            if final {
                runsByNotification[id] = nil
                shown[run] = nil
                return
            }
            shown[run] = entry
            if entry.dirty || entry.result != nil { send(run) }
        case .failure(let failure):
            // This run goes on without a notification; the next run tries again.
            runsByNotification[entry.id] = nil
            if let timer = entry.timer { loop.cancel(timer) }
            shown[run] = nil
            if loggedProblem != failure.description {
                loggedProblem = failure.description
                log("desktop notifications: \(failure); runs go on without them (start a notification server such as dunst, or set Notify=no in the job)")
            }
        }
    }

    private func actionInvoked(_ id: UInt32, _ key: String) {
        guard key == Self.cancelAction.key, let run = runsByNotification[id],
              shown[run]?.result == nil else { return }
        log("desktop notifications: Cancel pressed for run \(run): cancelling it")
        cancelRun(run)
    }
}

/// The words a notification shows.
enum NotificationText {
    /// The last notification's body for a stop reason (DESIGN §7).
    static func result(stopReason: String) -> String {
        func detail(_ prefix: String) -> String? {
            guard stopReason.hasPrefix(prefix + "("), stopReason.hasSuffix(")") else { return nil }
            return String(stopReason.dropFirst(prefix.count + 1).dropLast())
        }
        if stopReason == "success" { return "Done" }
        if stopReason == "cancelled" { return "Cancelled" }
        if stopReason == "agent-restart" { return "Stopped: the agent restarted" }
        if let exit = detail("failure") { return "Failed (\(exit))" }
        if let why = detail("expired") { return "Stopped: expired (\(why))" }
        if let signal = detail("crashed") { return "Crashed (\(signal))" }
        if let why = detail("spawn-failed") { return "Could not start (\(why))" }
        return "Ended: \(stopReason)"
    }
}
