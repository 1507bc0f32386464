// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §6, the launch columns of the policy table: one test per row.
@Suite struct LaunchPolicyTests {
    @Test func nominalOnACEveryKindRuns() {
        for job in [refreshJob, processingJob, continuedJob] {
            #expect(hold(job, Conditions()) == nil)
            #expect(hold(job, onAC(battery: 3)) == nil)
        }
    }

    @Test func onBatteryOnlyJobsThatNeedExternalPowerWait() {
        #expect(hold(refreshJob, onBattery(80)) == nil)
        #expect(hold(processingJob, onBattery(80)) == nil)
        #expect(hold(continuedJob, onBattery(80)) == nil)
        #expect(hold(needy("com.example.backup", power: true), onBattery(80)) == .externalPower)
        #expect(hold(needy("com.example.backup", power: true), onAC()) == nil)
    }

    @Test func batteryUnderTwentyPercentAndDischargingDefersDiscretionaryWork() {
        #expect(hold(refreshJob, onBattery(15)) == .batteryLow(percent: 15))
        #expect(hold(processingJob, onBattery(15)) == .batteryLow(percent: 15))
        #expect(hold(continuedJob, onBattery(15)) == nil)
        #expect(hold(refreshJob, onBattery(20)) == nil)
    }

    @Test func aLowBatteryThatIsChargingHoldsNothing() {
        #expect(hold(refreshJob, onAC(battery: 15)) == nil)
        #expect(hold(refreshJob, onBattery(15, discharging: false)) == nil)
    }

    @Test func batteryUnderFivePercentRefusesContinuedSubmissions() {
        let critical = hold(continuedJob, onBattery(4))
        #expect(critical == .batteryCritical(percent: 4))
        #expect(critical?.refusesSubmissions == true)
        #expect(hold(refreshJob, onBattery(4)) == .batteryCritical(percent: 4))
    }

    @Test func lowPowerModeStretchesRefreshAndDefersProcessingUnlessOnAC() {
        let lowPower = with(onBattery(60)) { $0.lowPower = true }
        #expect(hold(refreshJob, lowPower) == nil)
        #expect(LaunchPolicy.intervalFactor(.refresh, lowPower) == 4)
        #expect(LaunchPolicy.intervalFactor(.processing, lowPower) == 1)
        #expect(hold(processingJob, lowPower) == .lowPower)
        #expect(hold(processingJob, with(onAC()) { $0.lowPower = true }) == nil)
        #expect(hold(continuedJob, lowPower) == nil)
    }

    @Test func thermalFairDefersProcessingUnlessOnAC() {
        let fair = with(onBattery(60)) { $0.thermal = .fair }
        #expect(hold(refreshJob, fair) == nil)
        #expect(hold(processingJob, fair) == .thermal(.fair))
        #expect(hold(processingJob, with { $0.thermal = .fair }) == nil)
        #expect(hold(continuedJob, fair) == nil)
    }

    @Test func thermalSeriousDefersDiscretionaryWorkButContinuedRuns() {
        let serious = with { $0.thermal = .serious }
        #expect(hold(refreshJob, serious) == .thermal(.serious))
        #expect(hold(processingJob, serious) == .thermal(.serious))
        #expect(hold(continuedJob, serious) == nil)
    }

    @Test func thermalCriticalDefersEverythingAndRefusesSubmissions() {
        let critical = with { $0.thermal = .critical }
        #expect(hold(refreshJob, critical) == .thermal(.critical))
        #expect(hold(continuedJob, critical) == .thermal(.critical))
        #expect(hold(continuedJob, critical)?.refusesSubmissions == true)
        #expect(ConditionHold.thermal(.serious).refusesSubmissions == false)
    }

    @Test func memoryPressureDefersDiscretionaryWorkButContinuedRuns() {
        let pressure = with { $0.memoryPressure = true }
        #expect(hold(refreshJob, pressure) == .memoryPressure)
        #expect(hold(processingJob, pressure) == .memoryPressure)
        #expect(hold(continuedJob, pressure) == nil)
    }

    @Test func jobsThatNeedTheNetworkWaitWithoutADefaultRoute() {
        let offline = with { $0.network = false }
        #expect(hold(needy("com.example.sync", .refresh, network: true), offline) == .network)
        #expect(hold(needy("com.example.upload", .continued, network: true), offline) == .network)
        #expect(hold(refreshJob, offline) == nil)
    }

    @Test func jobsThatNeedIdleWaitWhileTheCPUIsBusy() {
        #expect(hold(needy("com.example.index", idle: true), with { $0.cpuBusy = true }) == .idle)
        #expect(hold(needy("com.example.index", idle: true), Conditions()) == nil)
    }

    @Test func aMissingGPUIsRefusedNotWaitedFor() {
        let noGPU = with { $0.resources = [] }
        let gpuJob = needy("com.example.render", .continued, resources: ["gpu"])
        #expect(hold(gpuJob, noGPU) == .resource("gpu"))
        #expect(hold(gpuJob, noGPU)?.refusesSubmissions == true)
        #expect(hold(gpuJob, noGPU)?.expiryReason == .resource)
        #expect(hold(gpuJob, Conditions()) == nil)
    }

    @Test func holdsReadTheWayStatusShowsThem() {
        #expect(WaitReason.condition(.externalPower).description == "external power")
        #expect(WaitReason.condition(.thermal(.serious)).description == "thermal serious")
        #expect(WaitReason.condition(.batteryLow(percent: 15)).description == "battery low (15%)")
        #expect(WaitReason.condition(.userActive(idleMinutes: 3, of: 15)).description == "user active (idle 3 min of 15)")
        // IdleFor= under a minute counts no whole minutes: no "idle 0 min of 0".
        #expect(ConditionHold.userActive(idleMinutes: 0, of: 0).description == "user active")
    }
}
