// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
@testable import AgentCLI

/// `agentctl events` lines for people, and `submit --wait`'s exit statuses (docs/agentctl.md).
@Suite struct EventLineTests {
    private let clock = DisplayClock.fixed(milliseconds: 1_796_112_000_000, zone: .fixedOffset(seconds: 3600))

    private func event(_ kind: EventKind, _ fill: (inout AgentEvent) -> Void = { _ in }) -> AgentEvent {
        var event = AgentEvent(sequence: 7, time: 1_796_112_001_042, type: kind,
                               identifier: "com.example.export", runID: "r000003")
        fill(&event)
        return event
    }

    @Test func aLineSaysWhenInLocalTimeWhoWhichRunAndWhat() {
        #expect(EventLine.text(event(.runStarted) { $0.reason = "submitted"; $0.requestID = 4; $0.title = "Export" }, clock: clock)
                == "09:00:01.042  com.example.export  r000003  started (submitted, request 4): Export")
        #expect(EventLine.text(event(.runProgress) { $0.progress = 0.42 }, clock: clock).hasSuffix("r000003  progress 42%"))
        #expect(EventLine.text(event(.runEnded) { $0.stopReason = "expired(max-runtime)" }, clock: clock)
                .hasSuffix("ended: expired(max-runtime)"))
        var stopping = AgentEvent(sequence: 8, time: 1_796_112_002_000, type: .agentStopping)
        stopping.message = "x"
        #expect(EventLine.text(stopping, clock: clock) == "09:00:02.000  -  -  agentd stopping")
    }

    /// Two changes of conditions read differently: low power, metering and pressure are in the
    /// line while they hold work back.
    @Test func aConditionsLineNamesLowPowerMeteringAndPressureWhileTheyHold() {
        var inputs = MachineInputs(power: .known(.ac), batteryPercent: nil, batteryStatus: nil, lowPower: false,
                                   lowPowerSource: "auto", thermal: .known(.nominal), hottestZone: nil, hottestCelsius: nil,
                                   marginCelsius: nil, marginTrip: nil, network: true, metered: .known(.no),
                                   memoryPressure: false, cpuBusy: false, sources: [])
        let changed = { (inputs: MachineInputs) in
            EventLine.text(self.event(.conditionsChanged) { $0.identifier = nil; $0.runID = nil; $0.inputs = inputs }, clock: self.clock)
        }
        #expect(changed(inputs) == "09:00:01.042  -  -  conditions: power ac, thermal nominal, network up")
        inputs.lowPower = true
        inputs.lowPowerSource = "on (agentctl)"
        inputs.metered = .known(.yes)
        inputs.memoryPressure = true
        inputs.presence = "away since 08:33"
        #expect(changed(inputs) == "09:00:01.042  -  -  conditions: power ac, low power on (agentctl), thermal nominal, "
            + "network up (metered), memory pressure, user away since 08:33")
    }

    @Test func aNewerAgentsKindsAndReasonsAreShownAsTheyAre() {
        var teleported = AgentEvent(sequence: 9, time: 1_796_112_003_000, type: .runEnded, identifier: "local.a", runID: "r000004")
        teleported.type = "run-teleported"
        #expect(EventLine.text(teleported, clock: clock).hasSuffix("r000004  run-teleported"))
        #expect(EventLine.text(event(.runEnded) { $0.stopReason = "expired(solar-flare)" }, clock: clock)
                .hasSuffix("ended: expired(solar-flare)"))
        #expect(EventLine.text(event(.runStarted) { $0.reason = "moonrise" }, clock: clock).hasSuffix("started (moonrise)"))
    }

    @Test func requestsAreShownWithTheirOwnEarliestBeginAndRequirements() {
        let added = event(.requestAdded) {
            $0.runID = nil
            $0.request = RunRequestOptions(earliestBegin: 1_796_115_600.5, requiresNetwork: .unmetered, requiresExternalPower: true)
        }
        #expect(EventLine.text(added, clock: clock)
                == "09:00:01.042  com.example.export  -  requested (earliest 10:00:00, requires unmetered network, requires external power)")
        let replaced = event(.requestReplaced) { $0.request = RunRequestOptions(earliestBegin: 1_796_112_060) }
        #expect(EventLine.text(replaced, clock: clock).hasSuffix("requested again, replacing the pending request (earliest 09:01:00)"))
        #expect(EventLine.text(event(.requestWithdrawn) { $0.message = "withdrew 1 request" }, clock: clock)
                .hasSuffix("withdrew 1 request"))
    }

    @Test func pluginTextIsShownWithoutTerminalControls() {
        let line = EventLine.text(event(.runTitle) { $0.title = "evil\u{1B}[2Jtitle" }, clock: clock)
        #expect(!line.contains("\u{1B}"))
    }

    @Test func submitWaitExitsWithTheStopReason() {
        #expect(RunWait.exitStatus(for: "success") == 0)
        #expect(RunWait.exitStatus(for: "failure(exit 7)") == 1)
        #expect(RunWait.exitStatus(for: "expired(no-progress)") == 6)
        #expect(RunWait.exitStatus(for: "expired(limit)") == 6)
        #expect(RunWait.exitStatus(for: "cancelled") == 7)
        #expect(RunWait.exitStatus(for: "crashed(signal 11)") == 8)
        #expect(RunWait.exitStatus(for: "spawn-failed(no such file)") == 8)
        #expect(RunWait.exitStatus(for: "agent-restart") == 5)
    }
}
