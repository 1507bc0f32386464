// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `RequiresNetwork=unmetered` (issue 15 item 3, DESIGN §3 and §6): a job that asks for an
/// unmetered network starts only on one, and a run of it loses its condition when the network
/// becomes metered. NetworkManager's `yes` and `guess-yes` are metered; `unknown` is not.
@Suite struct UnmeteredNetworkPolicyTests {
    func unmetered(_ name: String, _ kind: JobKind = .processing, pause: Bool = false) -> JobDefinition {
        var definition = needy(name, kind, network: true, pause: pause)
        definition.requiresUnmeteredNetwork = true
        return definition
    }

    let metered = with { $0.metered = .yes }

    @Test(arguments: [(UInt32(0), NetworkMetering.unknown), (1, .yes), (2, .no), (3, .yes), (4, .no), (7, .unknown)])
    func networkManagersMeteredValuesMapAsItsDocumentationAdvises(_ value: UInt32, _ expected: NetworkMetering) {
        #expect(NetworkMetering(networkManagerValue: value) == expected)
    }

    @Test func guessYesIsMeteredAndGuessNoAndUnknownAreNot() {
        #expect(NetworkMetering(networkManagerValue: 3).isMetered)
        #expect(!NetworkMetering(networkManagerValue: 4).isMetered)
        #expect(!NetworkMetering(networkManagerValue: 0).isMetered)
        #expect(NetworkMetering.networkManagerName(3) == "guess-yes")
    }

    @Test func anUnmeteredJobWaitsOnAMeteredNetworkForEveryKind() {
        for kind in JobKind.allCases {
            #expect(hold(unmetered("com.example.fetch", kind), metered) == .unmeteredNetwork)
        }
        #expect(ConditionHold.unmeteredNetwork.description == "unmetered network")
    }

    @Test func anUnmeteredJobRunsOnAnUnmeteredOrUnknownNetwork() {
        #expect(hold(unmetered("com.example.fetch"), Conditions()) == nil)
        #expect(hold(unmetered("com.example.fetch"), with { $0.metered = .unknown }) == nil)
    }

    @Test func untilNetworkManagerHasAnsweredAnUnmeteredJobWaitsAndOthersDoNot() {
        let checking = with { $0.metered = .checking }
        #expect(hold(unmetered("com.example.fetch"), checking) == .unmeteredNetwork)
        #expect(hold(needy("com.example.sync", network: true), checking) == nil)
    }

    @Test func withoutADefaultRouteTheRouteIsWhatItWaitsFor() {
        let offline = with(metered) { $0.network = false }
        #expect(hold(unmetered("com.example.fetch"), offline) == .network)
    }

    @Test func aJobThatNeedsOnlyTheNetworkRunsOnAMeteredOne() {
        #expect(hold(needy("com.example.sync", network: true), metered) == nil)
        #expect(hold(processingJob, metered) == nil)
    }

    @Test func aMeteredNetworkExpiresRunsThatNeedAnUnmeteredOneWithExpiredNetwork() {
        var sim = RunningWorkPolicyTests().running([unmetered("com.example.fetch"), needy("com.example.sync", network: true)])
        sim.send(.conditionsChanged(metered))
        #expect(sim.expiries.map(\.reason) == [.network])
        #expect(sim.run(of: "com.example.fetch") == nil)
        #expect(sim.run(of: "com.example.sync") != nil)
    }

    @Test func withOnConditionLostPauseAMeteredNetworkFreezesTheRunAndAnUnmeteredOneThawsIt() {
        var sim = RunningWorkPolicyTests().running([unmetered("com.example.mirror", pause: true)])
        let run = sim.run(of: "com.example.mirror")
        sim.send(.conditionsChanged(metered))
        #expect(sim.expiries.isEmpty)
        #expect(sim.freezes.map(\.hold) == [.unmeteredNetwork])
        sim.send(.conditionsChanged(Conditions()))
        #expect(sim.thaws == [run].compactMap { $0 })
    }

    @Test func aFailStrategySubmissionOnAMeteredNetworkIsRefusedNamingIt() {
        let upload = unmetered("com.example.upload", .continued)
        var sim = Simulation(settings: settings(maxConcurrent: 4, dailyBudget: 100), jobs: [upload])
        sim.send(.conditionsChanged(metered))
        sim.send(.submit(submission("com.example.upload", strategy: .fail, request: 1)))
        #expect(sim.replies[1] == .refused(.cannotStartNow(.condition(.unmeteredNetwork))))
    }
}
