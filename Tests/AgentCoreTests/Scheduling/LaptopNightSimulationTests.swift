// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Issue #12's closing simulation: `Schedule=daily 03:00`, `Window=01:00-05:00`,
/// `RandomizedDelay=30min`, `RequiresExternalPower=yes` on a laptop (Berlin winter time,
/// UTC+1) that is unplugged at night.
@Suite struct LaptopNightSimulationTests {
    static let berlin = FixedUTCOffset(seconds: 3600)
    static let name = "local.nightly-backup"

    func local(_ day: Int, _ hour: Int, _ minute: Int) -> SchedulerTime {
        localTime(2026, 12, day, hour, minute, 0, Self.berlin)
    }

    @Test func aDayAndTwoNightsOfANightlyJobOnALaptop() throws {
        let machineID = "3d1219c7c4c5404aaa1f6d2a48adfda4"
        let nightly = try calendarJob(Self.name, schedule: "daily 03:00", windows: ["01:00-05:00"],
                                      delay: minutes(30), requiresExternalPower: true)
        let offset = StableDelay.offset(span: minutes(30), machineID: machineID, identifier: id(Self.name))
        var history = PersistedSchedule()
        history.lastRunStart[id(Self.name)] = local(1, 3, 0) + offset  // ran last night
        var sim = wallClockSimulation([nightly], start: local(1, 12, 0), rule: Self.berlin, machineID: machineID,
                                      restored: history)
        // Night 1: unplugged at 23:30, back on the charger at 04:10 — inside the window.
        sim.schedule(.conditionsChanged(onBattery(85)), at: local(1, 23, 30))
        sim.schedule(.conditionsChanged(onAC(battery: 60)), at: local(2, 4, 10))
        // Night 2: unplugged at 22:00 until 07:30 — after the window closed.
        sim.schedule(.conditionsChanged(onBattery(90)), at: local(2, 22, 0))
        sim.schedule(.conditionsChanged(onAC(battery: 55)), at: local(3, 7, 30))

        var log: [String] = []
        func note(_ line: String) { log.append("\(show(sim.now, Self.berlin))  \(line)") }
        var lastCount = 0
        func step(to time: SchedulerTime, _ what: String? = nil) {
            sim.advance(to: time)
            #expect(sim.scheduler.checkInvariants(now: sim.now).isEmpty, "\(sim.scheduler.checkInvariants(now: sim.now))")
            for entry in sim.scheduler.explain(id(Self.name)).dropFirst(lastCount) {
                log.append("\(show(entry.time, Self.berlin))  \(entry.event)")
            }
            lastCount = sim.scheduler.explain(id(Self.name)).count
            if let what { note(what) }
            let waiting = sim.waiting(Self.name)
            note("  waiting: \(waiting.map { "\($0)" + ($0.time.map { " (\(show($0, Self.berlin)))" } ?? "") } ?? "-")")
        }
        step(to: local(1, 12, 0), "registered with history (last run 03:\(Int(offset.schedulerSeconds) / 60 % 60) today)")
        for time in [local(1, 23, 30), local(2, 3, 0), local(2, 4, 10), local(2, 12, 0)] { step(to: time) }
        #expect(sim.launches.map(\.time) == [local(2, 4, 10)])
        for time in [local(2, 22, 0), local(3, 4, 59), local(3, 5, 0), local(3, 7, 30), local(3, 12, 0)] { step(to: time) }
        // Night 2: due at 03:xx on battery, the window closed at 05:00, power came back at 07:30:
        // it waits for the window to open again.
        #expect(sim.launches.count == 1)
        #expect(sim.waiting(Self.name) == .window(opens: local(4, 1, 0)))
        step(to: local(4, 12, 0))
        #expect(sim.launches.map(\.time) == [local(2, 4, 10), local(4, 1, 0), local(4, 3, 0) + offset])
        #expect(sim.expiries.isEmpty)
        print("RandomizedDelay=30min offset of \(Self.name) on machine \(machineID): \(TimeSpan.format(offset))")
        print(log.joined(separator: "\n"))
    }
}
