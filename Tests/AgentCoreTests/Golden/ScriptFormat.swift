// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore

/// How a golden script prints times, reasons and actions: deterministic, local time of the
/// calendar in force, the day as an offset from the script's first day (`+1d 00:00:00`).
struct ScriptFormat {
    var start: SchedulerTime
    var calendar: LocalCalendar

    func time(_ t: SchedulerTime) -> String {
        let offset = Double(calendar.utcOffsetSeconds)
        let local = t.seconds + offset
        let day = (local / 86_400).rounded(.down)
        let startDay = ((start.seconds + offset) / 86_400).rounded(.down)
        let millisOfDay = Int(((local - day * 86_400) * 1000).rounded())
        let whole = millisOfDay / 1000, millis = millisOfDay % 1000
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var clock = "\(two(whole / 3600)):\(two(whole / 60 % 60)):\(two(whole % 60))"
        if millis > 0 {
            let digits = String(millis)
            clock += "." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        let days = Int(day - startDay)
        return days == 0 ? clock : "\(days > 0 ? "+" : "")\(days)d \(clock)"
    }

    func optionalTime(_ t: SchedulerTime?) -> String { t.map(time) ?? "none" }

    /// A wait reason with the time it names, as `pending` shows it.
    func reason(_ reason: WaitReason) -> String {
        switch reason {
        case .interval(let t, let factor): "interval\(factor > 1 ? " ×\(factor) in low-power mode" : "") (earliest \(time(t)))"
        case .afterBoot(let t): "after boot (earliest \(time(t)))"
        case .budget(let s): "\(reason.description) (\(s.used)/\(s.limit), refills \(time(s.refillsAt)))"
        case .triggerSpacing(let t): "trigger spacing (earliest \(time(t)))"
        case .retry(let t): "retry backoff (earliest \(time(t)))"
        case .requested(let t): "requested (earliest \(time(t)))"
        case .catchUp(let t): "catch-up (at \(time(t)))"
        default: reason.description
        }
    }

    func run(_ run: RunID) -> String { "r\(run.number)" }

    /// `earliest 09:00:00 [requires network, external power]`.
    func request(_ request: RunRequest) -> String {
        "earliest \(time(request.earliestBegin))"
            + (request.requirements.isEmpty ? "" : " requires \(request.requirements.description)")
    }

    func timeline(_ entry: TimelineEntry) -> String {
        var text: String
        switch entry.event {
        case .deferred(let why): text = "deferred: \(reason(why))"
        case .becameDue(let why, let since):
            text = "became due (\(why.rawValue))" + (since == entry.time ? "" : " since \(time(since))")
        case .retryScheduled(let at, _): text = "\(entry.event) at \(time(at))"
        case .catchUpScheduled(let at, _): text = "\(entry.event) at \(time(at))"
        case .requested(let request, _): text = "\(entry.event) (earliest \(time(request.earliestBegin)))"
        case .started(let id, let why): text = "run \(run(id)) started (\(why.rawValue))"
        case .ended(let id, let stop): text = "run \(run(id)) ended: \(stop)"
        case .expiring(let id, let hold): text = "run \(run(id)) expired: \(hold)"
        case .frozen(let id, let hold): text = "run \(run(id)) paused: \(hold)"
        case .thawed(let id): text = "run \(run(id)) resumed: conditions are back"
        default: text = entry.event.description
        }
        return "\(time(entry.time)) \(entry.identifier): \(text)"
    }

    func outcome(_ outcome: SubmitOutcome) -> String {
        switch outcome {
        case .accepted(let position): "accepted (position \(position))"
        case .requested(let replaced): replaced ? "requested (replaced the pending one)" : "requested"
        case .refused(let why): "refused: \(why)"
        }
    }

    /// One action; `run` is the run number the shell gave a launch.
    func action(_ action: SchedulerAction, launchedAs run: RunID?) -> String {
        switch action {
        case .launch(let order):
            let job = order.job.identifier
            let submission = order.submission
            var text = "launch \(job) (\(order.reason.rawValue))"
            if let run { text += " as \(self.run(run))" }
            if let submission {
                text += " request=\(submission.requestID)"
                if submission.identifier != job { text += " id=\(submission.identifier)" }
                if let title = submission.title { text += " title=\"\(title)\"" }
            }
            return text
        case .reply(let request, let outcome): return "reply \(request): \(self.outcome(outcome))"
        case .persist(let changes, let cadence):
            var text = "persist"
            if cadence == .now { text += " now" }
            let rows = changes.records.keys.sorted().map(\.rawValue)
            if !rows.isEmpty { text += " rows=" + rows.joined(separator: ",") }
            return text
        case .expire(let id, let why): return "expire \(self.run(id)): \(why.rawValue)"
        case .freeze(let id, let hold): return "freeze \(self.run(id)): \(hold)"
        case .thaw(let id): return "thaw \(self.run(id))"
        case .setCPUWeight(let id, let lowered): return "cpu-weight \(self.run(id)) \(lowered ? "lowered" : "restored")"
        case .log(let line): return "log: \(line)"
        }
    }

    func conditions(_ c: Conditions) -> String {
        var parts: [String] = []
        if c.power.externalPower { parts.append("ac") }
        if let battery = c.power.battery {
            parts.append("battery \(battery.percent)% \(battery.discharging ? "discharging" : "not discharging")")
        }
        parts.append("thermal \(c.thermal)")
        parts.append("network \(c.network ? "up" : "down")")
        // Unmetered is the default: shown only when it is not, so older scripts read unchanged.
        if c.metered != .no { parts.append("metered \(c.metered)") }
        if c.memoryPressure { parts.append("memory pressure") }
        if c.cpuBusy { parts.append("cpu busy") }
        if c.lowPower { parts.append("low-power mode") }
        if c.sleeping { parts.append("about to sleep") }
        switch c.presence {
        case .unknown: break
        case .active: parts.append("user active")
        case .checking: parts.append("user presence checking")
        case .away(let since): parts.append("user away since \(time(since))")
        }
        parts.append("resources " + (c.resources.isEmpty ? "none" : c.resources.sorted().joined(separator: ",")))
        return parts.joined(separator: ", ")
    }
}
