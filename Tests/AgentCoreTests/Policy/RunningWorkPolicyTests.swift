// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §6, the "running work" column and `OnConditionLost=pause`, through the scheduler with
/// virtual time.
@Suite struct RunningWorkPolicyTests {
    /// A simulation whose runs last until ended, with the given jobs submitted or triggered now.
    func running(_ jobs: [JobDefinition], maxConcurrent: Int = 8) -> Simulation {
        var sim = Simulation(settings: settings(maxConcurrent: maxConcurrent, dailyBudget: 100), jobs: jobs)
        sim.defaultDuration = nil
        for (index, job) in jobs.enumerated() {
            if job.kind == .continued {
                sim.send(.submit(submission(job.identifier.rawValue, request: Int64(index))))
            } else {
                sim.send(.trigger(job.identifier))
            }
        }
        sim.settle()
        return sim
    }

    @Test func unpluggingExpiresJobsThatNeedExternalPower() {
        var sim = running([needy("com.example.backup", power: true), processingJob])
        let backup = sim.run(of: "com.example.backup")
        #expect(backup != nil && sim.run(of: processingJob.identifier.rawValue) != nil)
        sim.send(.conditionsChanged(onBattery(80)))
        #expect(sim.expiries.map(\.run) == [backup].compactMap { $0 })
        #expect(sim.expiries.map(\.reason) == [.power])
        #expect(sim.run(of: processingJob.identifier.rawValue) != nil)
    }

    /// `agentctl run` bypasses policy (docs/agentctl.md): the run it starts is not stopped by
    /// the loss of what its job needs, only by what stops every run — and not at the next,
    /// unrelated change of conditions either.
    @Test func aRunStartedWithPolicyBypassedIsStoppedOnlyByTheHardStops() {
        var sim = Simulation(settings: settings(maxConcurrent: 8, dailyBudget: 100))
        sim.defaultDuration = nil
        sim.send(.conditionsChanged(onBattery(60)))
        sim.send(.jobsChanged([needy("com.example.backup", power: true)]))
        sim.send(.launchNow(id("com.example.backup"), reason: .manual, requestID: 1))
        let backup = sim.run(of: "com.example.backup")
        #expect(backup != nil)
        sim.send(.conditionsChanged(onBattery(59)))
        sim.send(.conditionsChanged(onBattery(15)))
        #expect(sim.expiries.isEmpty, "a battery under 20 % stops discretionary work, not work a person started")
        sim.send(.conditionsChanged(onBattery(4)))
        #expect(sim.expiries.map(\.run) == [backup].compactMap { $0 })
        #expect(sim.expiries.map(\.reason) == [.battery])
    }

    /// §7 `expired(resource)`: a `Resources=` resource gone (an eGPU unplugged) expires the
    /// runs that named it, continued ones too, and no other.
    @Test func aGPUGoneExpiresTheRunsThatNamedIt() {
        var sim = running([needy("com.example.render", .continued, resources: ["gpu"]), processingJob])
        let render = sim.run(of: "com.example.render")
        #expect(render != nil)
        sim.send(.conditionsChanged(with { $0.resources = [] }))
        #expect(sim.expiries.map(\.run) == [render].compactMap { $0 })
        #expect(sim.expiries.map(\.reason) == [.resource])
        #expect(sim.run(of: processingJob.identifier.rawValue) != nil)
    }

    @Test func aJobThatNeedsExternalPowerWaitsOnBatteryAndRunsWhenPluggedIn() {
        var sim = Simulation(settings: settings())
        sim.send(.conditionsChanged(onBattery(80)))
        sim.send(.jobsChanged([needy("com.example.backup", interval: hours(24), power: true)]))
        sim.advance(by: minutes(1))
        #expect(sim.launches.isEmpty)
        #expect(sim.waiting("com.example.backup") == .condition(.externalPower))
        #expect(sim.scheduler.waiting(now: sim.now).first?.waitingFor.description == "external power")
        sim.send(.conditionsChanged(onAC()))
        #expect(sim.launches.map(\.job) == [id("com.example.backup")])
    }

    @Test func batteryLowExpiresDiscretionaryRunsButNotContinuedOnes() {
        var sim = running([refreshJob, continuedJob])
        sim.send(.conditionsChanged(onBattery(15)))
        #expect(sim.expiries.map(\.reason) == [.battery])
        #expect(sim.run(of: continuedJob.identifier.rawValue) != nil)
        #expect(sim.run(of: refreshJob.identifier.rawValue) == nil)
    }

    @Test func batteryCriticalExpiresEveryRunLeastProgressFirst() {
        let jobs = [job("com.example.a", .continued), job("com.example.b", .continued), processingJob]
        var sim = running(jobs)
        let a = sim.run(of: "com.example.a"), b = sim.run(of: "com.example.b"), p = sim.run(of: processingJob.identifier.rawValue)
        if let a, let b, let p {
            sim.send(.runProgress(a, 0.8))
            sim.send(.runProgress(b, 0.1))
            sim.send(.runProgress(p, 0.5))
        }
        sim.send(.conditionsChanged(onBattery(4)))
        #expect(sim.expiries.map(\.run) == [b, p, a].compactMap { $0 })
        #expect(Set(sim.expiries.map(\.reason)) == [.battery])
    }

    @Test func thermalSeriousExpiresDiscretionaryRunsAndCriticalExpiresAll() {
        var sim = running([refreshJob, processingJob, continuedJob])
        sim.send(.conditionsChanged(with { $0.thermal = .serious }))
        #expect(sim.expiries.count == 2)
        #expect(sim.run(of: continuedJob.identifier.rawValue) != nil)
        sim.send(.conditionsChanged(with { $0.thermal = .critical }))
        #expect(sim.expiries.count == 3)
        #expect(Set(sim.expiries.map(\.reason)) == [.thermal])
        sim.send(.submit(submission(continuedJob.identifier.rawValue, request: 99)))
        #expect(sim.replies[99] == .refused(.cannotStartNow(.condition(.thermal(.critical)))))
    }

    @Test func losingTheNetworkExpiresRunsThatNeedIt() {
        var sim = running([needy("com.example.sync", .refresh, network: true), refreshJob])
        sim.send(.conditionsChanged(with { $0.network = false }))
        #expect(sim.expiries.map(\.reason) == [.network])
        #expect(sim.run(of: refreshJob.identifier.rawValue) != nil)
    }

    @Test func memoryPressureShedsTheLeastProgressContinuedRunFirstThenOneEveryStep() {
        let jobs = [job("com.example.a", .continued), job("com.example.b", .continued), processingJob]
        var sim = running(jobs)
        let a = sim.run(of: "com.example.a"), b = sim.run(of: "com.example.b")
        if let a, let b {
            sim.send(.runProgress(a, 0.3))
            sim.send(.runProgress(b, 0.6))
        }
        sim.send(.conditionsChanged(with { $0.memoryPressure = true }))
        #expect(sim.expiries.map(\.run) == [a].compactMap { $0 })
        sim.advance(by: Scheduler.pressureShedInterval)
        #expect(sim.expiries.map(\.run) == [a, b].compactMap { $0 })
        sim.send(.conditionsChanged(Conditions()))
        sim.advance(by: minutes(5))
        #expect(sim.expiries.count == 2)
        #expect(Set(sim.expiries.map(\.reason)) == [.pressure])
    }

    @Test func pauseOnConditionLostFreezesTheRunAndThawsItWhenPowerReturns() {
        var sim = running([needy("com.example.backup", power: true, pause: true)])
        let run = sim.run(of: "com.example.backup")
        sim.send(.conditionsChanged(onBattery(80)))
        #expect(sim.expiries.isEmpty)
        #expect(sim.freezes.map(\.run) == [run].compactMap { $0 })
        #expect(sim.freezes.map(\.hold) == [.externalPower])
        if let run { #expect(sim.scheduler.frozenReason(run) == .externalPower) }
        sim.advance(by: minutes(10))
        sim.send(.conditionsChanged(onAC()))
        #expect(sim.thaws == [run].compactMap { $0 })
        #expect(sim.run(of: "com.example.backup") == run)
    }

    @Test func aRunPausedLongerThanMaxPauseIsExpired() {
        var sim = running([needy("com.example.backup", power: true, pause: true, maxPause: minutes(30))])
        sim.send(.conditionsChanged(onBattery(80)))
        sim.advance(by: minutes(29))
        #expect(sim.expiries.isEmpty)
        sim.advance(by: minutes(2))
        #expect(sim.expiries.map(\.reason) == [.power])
        #expect(sim.run(of: "com.example.backup") == nil)
    }

    @Test func processingRunsOnBatteryGetALowerCPUWeightAndRegainItOnAC() {
        var sim = running([processingJob, refreshJob])
        let run = sim.run(of: processingJob.identifier.rawValue)
        sim.send(.conditionsChanged(onBattery(80)))
        #expect(sim.weights.map(\.run) == [run].compactMap { $0 })
        #expect(sim.weights.map(\.lowered) == [true])
        sim.send(.conditionsChanged(onAC()))
        #expect(sim.weights.map(\.lowered) == [true, false])
    }

    @Test func aProcessingRunStartedOnBatteryStartsWithTheLowerWeight() {
        var sim = Simulation(settings: settings(), jobs: [processingJob])
        sim.send(.conditionsChanged(onBattery(80)))
        sim.send(.trigger(processingJob.identifier))
        sim.settle()
        #expect(sim.weights.map(\.lowered) == [true])
    }

    @Test func aQueuedSubmissionWaitsForTheNetworkAndAFailingOneIsRefused() {
        let upload = needy("com.example.upload", .continued, network: true)
        var sim = Simulation(settings: settings(), jobs: [upload])
        sim.send(.conditionsChanged(with { $0.network = false }))
        sim.send(.submit(submission("com.example.upload", strategy: .fail, request: 1)))
        #expect(sim.replies[1] == .refused(.cannotStartNow(.condition(.network))))
        sim.send(.submit(submission("com.example.upload", request: 2)))
        #expect(sim.replies[2] == .accepted(position: 1))
        #expect(sim.launches.isEmpty)
        #expect(sim.scheduler.waiting(now: sim.now).map(\.waitingFor) == [.condition(.network)])
        sim.send(.conditionsChanged(Conditions()))
        #expect(sim.launches.map(\.job) == [id("com.example.upload")])
    }

    @Test func lowPowerModeRunsARefreshJobAQuarterAsOften() {
        var sim = Simulation(settings: settings(dailyBudget: 1000),
                             jobs: [job("com.example.feed", .refresh, interval: minutes(15))])
        sim.send(.conditionsChanged(with(onBattery(60)) { $0.lowPower = true }))
        sim.advance(by: hours(4))
        // At once, then every hour: 0, 60, 120, 180, 240 min.
        #expect(sim.launches.count == 5)
        sim.send(.conditionsChanged(onAC()))
        let before = sim.launches.count
        sim.advance(by: hours(1))
        #expect(sim.launches.count - before == 4)
    }

    @Test func everyDeferralByAConditionIsInTheTimeline() {
        var sim = Simulation(settings: settings())
        sim.send(.conditionsChanged(onBattery(80)))
        sim.send(.jobsChanged([needy("com.example.backup", interval: hours(24), power: true)]))
        sim.advance(by: minutes(1))
        let entries = sim.scheduler.explain(id("com.example.backup")).map(\.event.description)
        #expect(entries.contains("deferred: external power"))
    }
}
