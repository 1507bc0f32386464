// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

/// The NetworkManager stand-in built from Tests/NetworkManagerStandIn, next to this test bundle
/// in the build directory: it owns `org.freedesktop.NetworkManager` and exports only `Metered`.
final class NetworkManagerStandIn {
    static let executable: String = {
        let profiles = PowerProfilesStandIn.executable
        return String(profiles[..<(profiles.lastIndex(of: "/") ?? profiles.endIndex)]) + "/network-manager-stand-in"
    }()

    let child: TestChild

    /// Starts the stand-in with `Metered` = `value` and waits until it owns its name.
    init(address: String, metered value: UInt32) throws {
        child = try TestChild(Self.executable, ["--metered", String(value), address], withStdin: true)
        try child.expectLine("ready")
    }

    /// Changes `Metered` (PropertiesChanged is on the bus when this returns).
    func set(_ value: UInt32) throws {
        child.writeLine(String(value))
        try child.expectLine("set \(value)")
    }

    /// Ends the stand-in through the end of its stdin, and waits for it.
    func quit() {
        child.closeStdin()
        if !child.waitForExit(within: .seconds(10)) { child.terminate() }
    }
}

/// NetworkMeteredMonitor against a private dbus-daemon and the NetworkManager stand-in. Every
/// wait is for an event, bounded by a deadline; every process started is killed and reaped.
@Suite(.serialized)
struct NetworkMeteredMonitorTests {
    final class Recorder {
        var reports: [UInt32?] = []
        var statuses: [NetworkMeteredMonitor.Status] = []
    }

    private func makeMonitor(_ loop: EventLoop, _ bus: PrivateBus, _ recorder: Recorder) -> NetworkMeteredMonitor {
        let monitor = NetworkMeteredMonitor(loop: loop, bus: .address(bus.address)) { recorder.reports.append($0) }
        monitor.onStatusChange = { recorder.statuses.append($0) }
        return monitor
    }

    @Test func readsMeteredThenFollowsPropertiesChangedAndNetworkManagerStopping() throws {
        let bus = try PrivateBus()
        let standIn = try NetworkManagerStandIn(address: bus.address, metered: 1)
        defer { standIn.quit() }
        let loop = try EventLoop()
        let recorder = Recorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        #expect(recorder.reports == [1])
        #expect(monitor.status == .watching(networkManager: true))

        try standIn.set(2)
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 }))
        try standIn.set(3)
        #expect(runLoop(loop, until: { recorder.reports.count >= 3 }))
        #expect(recorder.reports == [1, 2, 3])
        #expect(monitor.metered == 3)

        // NetworkManager stopping: NameOwnerChanged with no new owner means "no value".
        standIn.quit()
        #expect(runLoop(loop, until: { recorder.reports.count >= 4 }))
        #expect(recorder.reports == [1, 2, 3, nil])
        #expect(monitor.status == .watching(networkManager: false))
        #expect(monitor.status.description == "NetworkManager not on the system bus")
    }

    @Test func reportsNoValueUntilNetworkManagerStartsThenItsValue() throws {
        let bus = try PrivateBus()
        let loop = try EventLoop()
        let recorder = Recorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        #expect(recorder.reports == [nil])
        #expect(monitor.status == .watching(networkManager: false))

        let standIn = try NetworkManagerStandIn(address: bus.address, metered: 4)
        defer { standIn.quit() }
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 }))
        #expect(recorder.reports == [nil, 4])
        #expect(monitor.status == .watching(networkManager: true))
    }

    @Test func aPropertiesChangedFromAnotherConnectionIsNotBelieved() throws {
        let bus = try PrivateBus()
        let standIn = try NetworkManagerStandIn(address: bus.address, metered: 2)
        defer { standIn.quit() }
        // A second stand-in queues for the name (it does not own it) and changes its own Metered.
        let impostor = try TestChild(NetworkManagerStandIn.executable, ["--metered", "2", bus.address], withStdin: true)
        try impostor.expectLine("queued")
        let loop = try EventLoop()
        let recorder = Recorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        impostor.writeLine("1")
        try impostor.expectLine("set 1")
        // The impostor's signal is on the bus (flushed) before "set 1": were it believed, it
        // would be reported within a few loop turns. The owner's change after it is.
        #expect(!runLoop(loop, until: { recorder.reports.count >= 2 }, limit: .milliseconds(300)))
        try standIn.set(4)
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 }))
        #expect(recorder.reports == [2, 4])
    }

    @Test func theBusGoingAwayReportsNoValueAndUnavailable() throws {
        let bus = try PrivateBus()
        let standIn = try NetworkManagerStandIn(address: bus.address, metered: 1)
        defer { standIn.quit() }
        let loop = try EventLoop()
        let recorder = Recorder()
        let monitor = makeMonitor(loop, bus, recorder)
        defer { monitor.stop() }

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        bus.kill()
        #expect(runLoop(loop, until: { recorder.reports.count >= 2 && monitor.status.isUnavailable }))
        #expect(recorder.reports == [1, nil])
        #expect(monitor.status.description.hasPrefix("unavailable: bus connection lost"), "\(monitor.status)")
        #expect(loop.watchCount == 0)
    }

    @Test func noBusAtTheAddressIsUnavailableAtOnceAndDeliversNothing() throws {
        let directory = try ConfigTempDirectory()
        let loop = try EventLoop()
        let recorder = Recorder()
        let monitor = NetworkMeteredMonitor(loop: loop, bus: .address("unix:path=\(directory.at("no-bus"))")) {
            recorder.reports.append($0)
        }
        let status = monitor.start()
        #expect(status.isUnavailable)
        #expect(status.description.contains("No such file or directory"), "\(status)")
        #expect(loop.watchCount == 0 && loop.timerCount == 0)
        loop.runOnce(timeout: .zero)
        #expect(recorder.reports.isEmpty)
    }

    @Test func stopEndsCallbacks() throws {
        let bus = try PrivateBus()
        let standIn = try NetworkManagerStandIn(address: bus.address, metered: 2)
        defer { standIn.quit() }
        let loop = try EventLoop()
        let recorder = Recorder()
        let monitor = makeMonitor(loop, bus, recorder)

        #expect(!monitor.start().isUnavailable)
        #expect(runLoop(loop, until: { !recorder.reports.isEmpty }))
        monitor.stop()
        #expect(loop.watchCount == 0 && loop.timerCount == 0)
        try standIn.set(1)
        loop.runOnce(timeout: .milliseconds(100))
        #expect(recorder.reports == [2])
    }
}
