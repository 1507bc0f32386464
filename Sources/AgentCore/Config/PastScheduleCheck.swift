// SPDX-License-Identifier: Apache-2.0
/// `check`'s warning for a `Schedule=` whose every date is past (`2020-01-01`,
/// `2024..2025-*-01`): it never starts the job again. Loading cannot tell (the parse has no
/// clock, and the file stays valid); `check` runs at a known time and says so, as
/// `systemd-analyze calendar` shows "Next elapse: never".
public enum PastScheduleCheck {
    /// One warning per registered job whose schedule matches some date, none of them after
    /// `now` in the zone `rule` describes (a schedule that matches no date at all is warned of
    /// where it is read).
    public static func warnings(_ registry: ConfigRegistry, now: SchedulerTime,
                                rule: some UTCOffsetRule) -> [ConfigDiagnostic] {
        registry.allJobs.compactMap { job in
            guard case .registered = job.state, let event = job.definition.schedule,
                  event.matchesSomeDate, event.nextMatch(after: now, rule: rule) == nil else { return nil }
            return ConfigDiagnostic(
                path: job.sourcePath, severity: .warning,
                message: "Schedule=\(event.description): every date it names is past, so it starts nothing "
                    + "again: the job runs only when requested, triggered or run; give a date to come "
                    + "(agentctl calendar shows when an expression next elapses)")
        }
    }
}
