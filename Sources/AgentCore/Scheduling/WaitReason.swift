// SPDX-License-Identifier: Apache-2.0
/// Why a job or a submission that would run is waiting (DESIGN §6: "every waiting job says why").
///
/// ``description`` names the reason without its time (`"interval"`, `"budget"`); the shell
/// formats the time for people: `waiting: interval (earliest 14:05)`,
/// `waiting: budget of com.example.photos (12/12, refills 00:00)`.
public enum WaitReason: Sendable, Hashable, CustomStringConvertible {
    /// Not due yet: its `Interval=` since the last run ends at `earliest`; `factor` 4 while
    /// low-power mode stretches a refresh job's interval (DESIGN §6), so the wait says why.
    case interval(earliest: SchedulerTime, factor: Int = 1)
    /// Not due yet: its `AfterBoot=` span since the machine booted ends at `earliest`.
    case afterBoot(earliest: SchedulerTime)
    /// The day's `DailyBudget=` of discretionary launches of the job's manifest is spent; it
    /// refills at local midnight.
    case budget(BudgetStanding)
    /// `agentctl pause`: all discretionary work waits.
    case paused
    /// `MaxConcurrent=` runs are live.
    case maxConcurrent
    /// A person disabled it (`agentctl disable`). Its code is `denied` (iOS's
    /// `UIBackgroundRefreshStatus.denied`: the user said no); people read "disabled".
    case denied
    /// An administrator forbids it (`Deny=` in agentd.conf).
    case restricted
    /// A trigger waits for `TriggerSpacing=` after the identifier's previous launch.
    case triggerSpacing(earliest: SchedulerTime)
    /// A run-time request (`agentctl request`) waits for its own earliest begin.
    case requested(earliest: SchedulerTime)
    /// `Retry=` backoff after a failure.
    case retry(earliest: SchedulerTime)
    /// After downtime: its catch-up slot within `CatchUpSpread=`.
    case catchUp(at: SchedulerTime)
    /// One run at a time per refresh/processing identifier: its run is live.
    case running
    /// No `Interval=` and nothing pending: it runs only when triggered.
    case notDue
    /// The agent is stopping (SIGTERM): it starts again after the restart.
    case agentStopping
    /// Not due yet: its next `Schedule=` slot (with its `RandomizedDelay=` offset) is `next`.
    case schedule(next: SchedulerTime)
    /// Due, but outside every `Window=`: the next one opens at `opens`.
    case window(opens: SchedulerTime)
    /// A machine condition holds it (DESIGN §6): external power, battery, thermal, network…
    case condition(ConditionHold)

    public var description: String {
        switch self {
        case .interval(_, let factor): factor > 1 ? "interval ×\(factor) in low-power mode" : "interval"
        case .afterBoot: "after boot"
        case .budget(let hold): hold.account == BudgetAccounts.fallback ? "budget" : "budget of \(hold.account)"
        case .paused: "paused"
        case .maxConcurrent: "max concurrent"
        case .denied: "disabled"
        case .restricted: "restricted"
        case .triggerSpacing: "trigger spacing"
        case .requested: "requested"
        case .retry: "retry backoff"
        case .catchUp: "catch-up"
        case .running: "running"
        case .notDue: "not due"
        case .agentStopping: "agent stopping"
        case .schedule: "schedule"
        case .window: "window"
        case .condition(let hold): hold.description
        }
    }

    /// The time the reason names, if any: the earliest begin, the refill or the catch-up slot.
    public var time: SchedulerTime? {
        switch self {
        case .interval(let t, _), .afterBoot(let t), .triggerSpacing(let t), .retry(let t), .catchUp(let t), .requested(let t):
            t
        case .budget(let hold):
            hold.refillsAt
        case .schedule(let t), .window(let t):
            t
        case .paused, .maxConcurrent, .denied, .restricted, .running, .notDue, .condition, .agentStopping:
            nil
        }
    }
}

/// One budget account's day: the manifest, what it has used of its limit today, and when it
/// refills. `status` lists one per manifest; a job that waits on it names it (`explain`).
public struct BudgetStanding: Sendable, Hashable {
    public var account: String
    public var used: Int
    public var limit: Int
    public var refillsAt: SchedulerTime

    public init(account: String, used: Int, limit: Int, refillsAt: SchedulerTime) {
        self.account = account
        self.used = used
        self.limit = limit
        self.refillsAt = refillsAt
    }

    /// Launches left today; an unlimited budget (`DailyBudget=infinity`) stays unlimited
    /// however many were spent (docs/json.md: `leftLaunchCount` is then Int64.max too).
    public var remaining: Int {
        limit == AgentSettings.unlimitedDailyBudget ? limit : max(0, limit - used)
    }
}
