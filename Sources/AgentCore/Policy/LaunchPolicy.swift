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
    public static func hold(_ job: JobDefinition, _ conditions: Conditions,
                            _ settings: AgentSettings) -> ConditionHold?
    {
        let percent = conditions.power.battery?.percent ?? 100
        if conditions.batteryBelow(settings.batteryCritical) { return .batteryCritical(percent: percent) }
        if conditions.thermal == .critical { return .thermal(.critical) }
        if let missing = job.resources.first(where: { !conditions.resources.contains($0) }) {
            return .resource(missing)
        }
        if job.requiresExternalPower, !conditions.power.externalPower { return .externalPower }
        if job.requiresNetwork, !conditions.network { return .network }
        if job.requiresIdle, conditions.cpuBusy { return .idle }
        guard job.kind != .continued else { return nil }
        if conditions.batteryBelow(settings.batteryLow) { return .batteryLow(percent: percent) }
        if conditions.thermal == .serious { return .thermal(.serious) }
        if conditions.memoryPressure { return .memoryPressure }
        if job.kind == .processing, !conditions.power.externalPower {
            if conditions.lowPower { return .lowPower }
            if conditions.thermal == .fair { return .thermal(.fair) }
        }
        return nil
    }

    /// Low-power mode stretches refresh intervals ×4 (iOS's Low Power Mode analog).
    public static func intervalFactor(_ kind: JobKind, _ conditions: Conditions) -> Int {
        kind == .refresh && conditions.lowPower ? 4 : 1
    }
}
