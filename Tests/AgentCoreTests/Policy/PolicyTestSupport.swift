// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore

/// Conditions on battery at `percent` (discharging unless said otherwise).
func onBattery(_ percent: Int, discharging: Bool = true) -> Conditions {
    Conditions(power: PowerState(externalPower: false,
                                 battery: BatteryLevel(percent: percent, discharging: discharging)))
}

/// A laptop on AC with its battery at `percent`, charging.
func onAC(battery percent: Int = 80) -> Conditions {
    Conditions(power: PowerState(externalPower: true, battery: BatteryLevel(percent: percent, discharging: false)))
}

func with(_ base: Conditions = Conditions(), _ change: (inout Conditions) -> Void) -> Conditions {
    var copy = base
    change(&copy)
    return copy
}

/// A job that needs things.
func needy(_ name: String, _ kind: JobKind = .processing, interval: Duration? = nil,
           power: Bool = false, network: Bool = false, idle: Bool = false,
           resources: [String] = [], pause: Bool = false, maxPause: Duration = .seconds(3600)) -> JobDefinition
{
    var definition = job(name, kind, interval: interval)
    definition.requiresExternalPower = power
    definition.requiresNetwork = network
    definition.requiresIdle = idle
    definition.resources = resources
    definition.onConditionLost = pause ? .pause : .expire
    definition.maxPause = maxPause
    return definition
}

let refreshJob = job("com.example.refresh", .refresh)
let processingJob = job("com.example.processing", .processing)
let continuedJob = job("com.example.continued", .continued)
let defaults = AgentSettings()

func hold(_ job: JobDefinition, _ conditions: Conditions) -> ConditionHold? {
    LaunchPolicy.hold(job, conditions, defaults)
}
