// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

/// PowerProfilesMonitor against a private dbus-daemon and the C stand-in for
/// power-profiles-daemon (Tests/PowerProfilesStandIn). Every wait is for an event, bounded by a
/// deadline of several seconds; every process started is killed and reaped.
@Suite(.serialized)
struct PowerProfilesMonitorTests {
    private func makeMonitor(_ loop: EventLoop, _ bus: PrivateBus, _ recorder: ProfileRecorder) -> PowerProfilesMonitor {
        let monitor = PowerProfilesMonitor(loop: loop, bus: .address(bus.address)) { recorder.reports.append($0) }
        monitor.onStatusChange = { recorder.statuses.append($0) }
        return monitor
    }

    @Test func readsTheInitialProfileThenFollowsChangesAndTheDaemonExit() throws {
        let bus = try PrivateBus()
        let standIn = try PowerProfilesStandIn(address: bus.address, profile: "performance")
        defer { standIn.quit() }
        let loop = try EventLoop()
        let recorder = ProfileRecorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        let started = monitor.start()
        #expect(!started.isUnavailable, "\(started)")
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        #expect(recorder.reports == ["performance"])
        #expect(monitor.profile == "performance")
        #expect(!monitor.isLowPower)
        #expect(monitor.status == .watching(service: "net.hadess.PowerProfiles"))

        try standIn.set("power-saver")
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 }))
        #expect(recorder.reports == ["performance", "power-saver"])
        #expect(monitor.isLowPower)

        try standIn.set("balanced")
        #expect(runLoop(loop, until: { recorder.reports.count >= 3 }))
        #expect(recorder.reports == ["performance", "power-saver", "balanced"])

        // The daemon stopping: NameOwnerChanged with no new owner means "unknown".
        standIn.quit()
        #expect(runLoop(loop, until: { recorder.reports.count >= 4 }))
        #expect(recorder.reports == ["performance", "power-saver", "balanced", nil])
        #expect(monitor.profile == nil)
        #expect(monitor.status == .watching(service: nil))
    }

    @Test func reportsUnknownUntilTheDaemonStartsThenItsProfile() throws {
        let bus = try PrivateBus()
        let loop = try EventLoop()
        let recorder = ProfileRecorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        #expect(recorder.reports == [nil])
        #expect(monitor.status == .watching(service: nil))

        let standIn = try PowerProfilesStandIn(address: bus.address, profile: "power-saver")
        defer { standIn.quit() }
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 }))
        #expect(recorder.reports == [nil, "power-saver"])
        #expect(monitor.isLowPower)
    }

    @Test func prefersTheUPowerNameAndFallsBackToTheOldOne() throws {
        let bus = try PrivateBus()
        let old = try PowerProfilesStandIn(address: bus.address, profile: "balanced")
        defer { old.quit() }
        let new = try PowerProfilesStandIn(address: bus.address, profile: "performance", upower: true)
        defer { new.quit() }
        let loop = try EventLoop()
        let recorder = ProfileRecorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        #expect(recorder.reports == ["performance"])
        #expect(monitor.status == .watching(service: "org.freedesktop.UPower.PowerProfiles"))

        // A change on the name not in use is not believed.
        try old.set("power-saver")
        try new.set("balanced")
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 }))
        #expect(recorder.reports == ["performance", "balanced"])

        new.quit()
        #expect(runLoop(loop, until: { monitor.status == .watching(service: "net.hadess.PowerProfiles")
                && recorder.reports.last == "power-saver" }))
        #expect(recorder.reports.last == "power-saver")
        #expect(!recorder.reports.contains(nil))
    }

    @Test func theBusGoingAwayReportsUnknownAndUnavailable() throws {
        let bus = try PrivateBus()
        let standIn = try PowerProfilesStandIn(address: bus.address, profile: "power-saver")
        defer { standIn.quit() }
        let loop = try EventLoop()
        let recorder = ProfileRecorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        #expect(recorder.reports == ["power-saver"])

        bus.kill()
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 && monitor.status.isUnavailable }))
        #expect(recorder.reports == ["power-saver", nil])
        #expect(monitor.status.description.hasPrefix("unavailable: bus connection lost"), "\(monitor.status)")
        #expect(loop.watchCount == 0)
    }

    @Test func noBusAtTheAddressIsUnavailableNotAnError() throws {
        let directory = try ConfigTempDirectory()
        let loop = try EventLoop()
        let recorder = ProfileRecorder()
        let monitor = PowerProfilesMonitor(loop: loop, bus: .address("unix:path=\(directory.at("no-bus"))")) {
            recorder.reports.append($0)
        }
        let status = monitor.start()
        #expect(status.isUnavailable)
        #expect(status.description.hasPrefix("unavailable: "), "\(status)")
        #expect(status.description.contains("No such file or directory"), "\(status)")
        #expect(monitor.profile == nil)
        #expect(loop.watchCount == 0 && loop.timerCount == 0)
        // Nothing is delivered later either.
        loop.runOnce(timeout: .zero)
        #expect(recorder.reports.isEmpty)
    }

    @Test(.enabled(if: getenv("DBUS_SYSTEM_BUS_ADDRESS") == nil && access("/run/dbus/system_bus_socket", F_OK) != 0,
                   "this machine has a system bus"))
    func theSystemBusIsUnavailableWhereThereIsNone() throws {
        let loop = try EventLoop()
        let monitor = PowerProfilesMonitor(loop: loop) { _ in }
        let status = monitor.start()
        #expect(status.isUnavailable)
        #expect(status.description.contains("/run/dbus/system_bus_socket"), "\(status)")
    }

    @Test func stopEndsCallbacksAndCanStartAgain() throws {
        let bus = try PrivateBus()
        let standIn = try PowerProfilesStandIn(address: bus.address, profile: "balanced")
        defer { standIn.quit() }
        let loop = try EventLoop()
        let recorder = ProfileRecorder()
        let monitor = makeMonitor(loop, bus, recorder)

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        monitor.stop()
        #expect(monitor.status == .stopped)
        #expect(loop.watchCount == 0 && loop.timerCount == 0)
        try standIn.set("power-saver")
        loop.runOnce(timeout: .milliseconds(100))
        #expect(recorder.reports == ["balanced"])

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 }))
        #expect(recorder.reports == ["balanced", "power-saver"])
        monitor.stop()
    }
}
