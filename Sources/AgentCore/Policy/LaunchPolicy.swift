// SPDX-License-Identifier: Apache-2.0
/// Whether a job may start under the current conditions: the launch columns of DESIGN §6's
/// policy table, one pure function so that each row is a test.
///
/// | condition | refresh | processing | continued |
/// | on battery | runs | waits if `RequiresExternalPower` | runs |
/// | battery < low, discharging | waits | waits | runs |
/// | battery < critical, discharging | waits | waits | refused |
/// | low-power mode | interval ×4 | waits unless on AC | runs |
/// | thermal fair | runs | waits unless on AC | runs |
/// | thermal serious | waits | waits | runs |
/// | thermal critical | waits | waits | refused |
/// | memory pressure | waits | waits | runs |
///
/// A job's own declarations come on top for every kind: `RequiresExternalPower=`,
/// `RequiresNetwork=`, `RequiresIdle=` and `Resources=` (a plugin author who says the job needs
/// the network means it, also for a person's submission).
public enum LaunchPolicy {
    /// The first condition that holds `job` back, or nil when it may start. Hard stops come
    /// first (critical battery, critical heat, a missing resource), then the job's own
    /// requirements, then the discretionary rows.
    /// `now` is when `IdleFor=` is judged (nil: a user away counts as away long enough).
    public static func hold(_ job: JobDefinition, _ conditions: Conditions,
                            _ settings: AgentSettings, now: SchedulerTime? = nil) -> ConditionHold?
    {
        // Nothing starts between PrepareForSleep(true) and the resume.
        if conditions.sleeping { return .sleep }
        if let stop = hardStop(conditions, settings) { return stop }
        if let missing = missingResource(job, conditions) { return missing }
        if let need = lostNeed(job, conditions) { return need }
        if job.requiresIdle {
            if conditions.cpuBusy { return .idle }
            if let away = conditions.presence.hold(idleFor: job.extra.idleFor, now: now) { return away }
        }
        guard job.kind != .continued else { return nil }
        if let stop = discretionaryStop(conditions, settings) { return stop }
        if conditions.memoryPressure { return .memoryPressure }
        if job.kind == .processing, !conditions.power.externalPower {
            if conditions.lowPower { return .lowPower }
            if conditions.thermal == .fair { return .thermal(.fair) }
        }
        return nil
    }

    /// Critical battery or critical heat: every kind stops (and submissions are refused).
    static func hardStop(_ conditions: Conditions, _ settings: AgentSettings) -> ConditionHold? {
        if conditions.batteryBelow(settings.batteryCritical) {
            return .batteryCritical(percent: conditions.power.battery?.percent ?? 0)
        }
        if conditions.thermal == .critical { return .thermal(.critical) }
        return nil
    }

    /// A `Resources=` resource the machine does not have (now).
    static func missingResource(_ job: JobDefinition, _ conditions: Conditions) -> ConditionHold? {
        job.resources.first(where: { !conditions.resources.contains($0) }).map { .resource($0) }
    }

    /// What the job itself declared it needs and does not have: external power, the network, an
    /// unmetered network (`unknown` metering counts as unmetered).
    static func lostNeed(_ job: JobDefinition, _ conditions: Conditions) -> ConditionHold? {
        if job.requiresExternalPower, !conditions.power.externalPower { return .externalPower }
        if job.requiresNetwork, !conditions.network { return .network }
        if job.requiresUnmeteredNetwork, conditions.metered.holdsUnmeteredWork { return .unmeteredNetwork }
        return nil
    }

    /// A low battery or serious heat: discretionary work (refresh, processing) stops.
    static func discretionaryStop(_ conditions: Conditions, _ settings: AgentSettings) -> ConditionHold? {
        if conditions.batteryBelow(settings.batteryLow) {
            return .batteryLow(percent: conditions.power.battery?.percent ?? 0)
        }
        if conditions.thermal == .serious { return .thermal(.serious) }
        return nil
    }

    /// Low-power mode stretches refresh intervals ×4 (iOS's Low Power Mode analog).
    public static func intervalFactor(_ kind: JobKind, _ conditions: Conditions) -> Int {
        kind == .refresh && conditions.lowPower ? 4 : 1
    }
}
