// SPDX-License-Identifier: Apache-2.0
/// What the machine's sleep means for runs (DESIGN §6, "machine about to sleep"), and which
/// runs keep the desktop from idle-suspending.
///
/// | run | before sleep | after resume |
/// | `OnSleep=freeze` | frozen | thawed |
/// | `OnSleep=expire` | `expired(sleep)`, grace shortened to fit logind's delay | — |
/// | no `OnSleep=`: `OnConditionLost=pause` or continued | frozen | thawed |
/// | no `OnSleep=`: other discretionary | `expired(sleep)` | — |
///
/// The agent holds logind's sleep *delay* inhibitor while a run is live and releases it once
/// every run is frozen or gone (`Scheduler.wantsSleepLock`); a continued run (or any run whose
/// job says `InhibitIdle=yes`) holds an idle *block* inhibitor while live.
public enum SleepPolicy {
    /// Frozen over the suspend rather than expired: as `OnSleep=` says, else for continued
    /// runs (the user waits for them) and `OnConditionLost=pause` runs.
    public static func freezes(_ job: JobDefinition) -> Bool {
        action(job) == .freeze
    }

    /// `OnSleep=`, or its default for the job.
    public static func action(_ job: JobDefinition) -> SleepAction {
        job.extra.onSleep ?? (job.onConditionLost == .pause || job.kind == .continued ? .freeze : .expire)
    }

    /// The grace period of a run expired before sleep: its own, but at most half of logind's
    /// `InhibitDelayMaxUSec`, so SIGKILL and the reaping still fit before logind stops waiting.
    public static func gracePeriod(_ own: Duration, inhibitDelayMax: Duration) -> Duration {
        min(own, graceLimit(inhibitDelayMax: inhibitDelayMax))
    }

    /// The longest grace period a run expired before sleep may have.
    public static func graceLimit(inhibitDelayMax: Duration) -> Duration {
        inhibitDelayMax / 2
    }

    /// `InhibitIdle=`: yes for continued jobs unless they say otherwise, no for the others
    /// unless they ask.
    public static func inhibitsIdle(_ job: JobDefinition) -> Bool {
        job.extra.inhibitIdle ?? (job.kind == .continued)
    }
}

/// The slot the shell's wake-up alarm (`CLOCK_REALTIME_ALARM`) is armed for.
public struct WakeSlot: Sendable, Hashable {
    public var at: SchedulerTime
    public var identifier: Identifier
}

extension Scheduler {
    /// The next slot of a `WakeSystem=yes` `Schedule=` job after `now` whose job could run
    /// then as far as is known now: not restricted or disabled, and not `RequiresExternalPower=`
    /// while on battery (a machine asleep on battery stays on battery). nil: no alarm.
    /// O(jobs with WakeSystem=).
    public func wakeSlot(now: SchedulerTime) -> WakeSlot? {
        var best: WakeSlot?
        for id in wakeJobs.sorted() {
            guard let job = jobs[id], !job.restricted, !disabled.contains(id),
                  !(job.definition.requiresExternalPower && !conditions.power.externalPower),
                  let candidate = candidate(job, now: now), candidate.eligibleAt > now else { continue }
            if best.map({ candidate.eligibleAt < $0.at }) ?? true {
                best = WakeSlot(at: candidate.eligibleAt, identifier: id)
            }
        }
        return best
    }
}
