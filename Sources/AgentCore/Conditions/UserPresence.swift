// SPDX-License-Identifier: Apache-2.0
/// Whether the user is at the machine (DESIGN §6, `RequiresIdle=`): from systemd-logind, every
/// session of the seat idle (`IdleHint`) or locked (`LockedHint`) — for the per-user agent, its
/// own user's sessions.
public enum UserPresence: Sendable, Hashable, Codable {
    /// No logind, or no session with a seat (a server): `RequiresIdle=` is CPU pressure alone.
    case unknown
    /// Someone is using a session.
    case active
    /// Every session idle or locked since this wall-clock time.
    case away(since: SchedulerTime)
    /// logind is being asked (the agent just started, or logind reappeared): `RequiresIdle=`
    /// work waits for its answer.
    case checking

    /// For `RequiresIdle=` with `IdleFor=`: nil when the user has been away long enough (or
    /// presence is unknown), else the hold `waiting: user active (idle 3 min of 15)`. `now` nil:
    /// away counts as long enough.
    func hold(idleFor: Duration, now: SchedulerTime?) -> ConditionHold? {
        let needed = Self.minutes(idleFor)
        switch self {
        case .unknown:
            return nil
        case .checking:
            return .presenceChecking
        case .active:
            return .userActive(idleMinutes: 0, of: needed)
        case .away(let since):
            guard let now else { return nil }
            let away = now.duration(since: since)
            return away >= idleFor ? nil : .userActive(idleMinutes: Self.minutes(away), of: needed)
        }
    }

    /// Whole minutes, rounded down (never negative).
    static func minutes(_ span: Duration) -> Int {
        max(0, Int(span.components.seconds / 60))
    }
}
