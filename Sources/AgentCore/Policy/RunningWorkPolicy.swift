// SPDX-License-Identifier: Apache-2.0
/// The "running work" column of DESIGN §6's policy table: which condition a live run has lost.
///
/// | condition | running work |
/// | on battery | `RequiresExternalPower` runs lose it (`expired(power)`) |
/// | no default route | `RequiresNetwork` runs lose it (`expired(network)`) |
/// | metered network | `RequiresNetwork=unmetered` runs lose it (`expired(network)`) |
/// | battery < low, discharging | refresh and processing runs (`expired(battery)`) |
/// | battery < critical, discharging | every run, least progress first |
/// | thermal serious | refresh and processing runs (`expired(thermal)`) |
/// | thermal critical | every run, least progress first |
/// | a `Resources=` resource gone (an eGPU unplugged) | the runs that named it (`expired(resource)`) |
///
/// Low-power mode, thermal fair and a busy CPU only gate starts; memory pressure sheds runs one
/// at a time (the scheduler's pressure step), not through this rule. The pieces are the launch
/// policy's own, so a run is stopped only by what would also keep it from starting.
public enum RunningWorkPolicy {
    /// `now`: when `IdleFor=` is judged for a run frozen because the user came back (it thaws
    /// once the user has been away that long again); nil: away counts as long enough.
    ///
    /// `policyBypassed`: a run started with policy bypassed (`agentctl run`) was started without
    /// its job's needs, so losing one of them stops nothing: only the hard stops and the suspend.
    public static func lost(_ job: JobDefinition, _ conditions: Conditions,
                            _ settings: AgentSettings, now: SchedulerTime? = nil, policyBypassed: Bool = false) -> ConditionHold?
    {
        // Before a suspend every run loses the machine; whether it is frozen or expired is
        // `SleepPolicy`'s call.
        if conditions.sleeping { return .sleep }
        if let stop = LaunchPolicy.hardStop(conditions, settings) { return stop }
        if policyBypassed { return nil }
        if let missing = LaunchPolicy.missingResource(job, conditions) { return missing }
        if let need = LaunchPolicy.lostNeed(job, conditions) { return need }
        // The user came back: a RequiresIdle= run stops (or pauses) whatever its kind.
        // While logind is being asked again (it restarted), who is at the machine is unknown,
        // not changed: a running run goes on (and a paused one stays paused: applyRunPolicy).
        if job.requiresIdle, conditions.presence != .checking,
           let hold = conditions.presence.hold(idleFor: job.extra.idleFor, now: now) { return hold }
        guard job.kind != .continued else { return nil }
        return LaunchPolicy.discretionaryStop(conditions, settings)
    }
}
