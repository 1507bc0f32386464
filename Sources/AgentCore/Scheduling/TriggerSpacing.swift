// SPDX-License-Identifier: Apache-2.0
/// The trigger rate limit (DESIGN §6): at most one launch per `TriggerSpacing=` per identifier
/// for triggers; triggers arriving meanwhile merge into the one pending request.
///
/// The spacing counts from the identifier's previous launch of any reason (a run that just
/// happened already served the trigger's purpose), so a refresh job triggered 14 times an hour
/// launches at most once per spacing whatever its `Interval=`.
enum TriggerSpacing {
    /// When a trigger may launch: not before it arrived, nor before `spacing` after the
    /// previous launch.
    static func earliestLaunch(triggeredAt: SchedulerTime, lastLaunch: SchedulerTime?,
                               spacing: Duration) -> SchedulerTime
    {
        guard let lastLaunch else { return triggeredAt }
        return max(triggeredAt, spacingEnd(lastLaunch: lastLaunch, spacing: spacing))
    }

    static func spacingEnd(lastLaunch: SchedulerTime, spacing: Duration) -> SchedulerTime {
        lastLaunch + max(spacing, .zero)
    }
}
