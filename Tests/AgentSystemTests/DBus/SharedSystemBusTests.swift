// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

/// The logind stand-in (Tests/LogindStandIn), next to the other stand-ins in the build directory.
final class LogindStandIn {
    static let executable: String = {
        let profiles = PowerProfilesStandIn.executable
        return String(profiles[..<(profiles.lastIndex(of: "/") ?? profiles.endIndex)]) + "/login1-stand-in"
    }()

    let child: TestChild

    /// Starts the stand-in and waits until it owns `org.freedesktop.login1`.
    init(address: String) throws {
        child = try TestChild(Self.executable, [address], withStdin: true)
        try child.expectLine("ready")
    }
}

/// `SystemBus`: the three bus monitors on one connection to a private dbus-daemon, that
/// connection opened again after the bus daemon restarts, and one monitor leaving without
/// touching the others. Every wait is for an event, bounded by a deadline.
@Suite(.serialized)
struct SharedSystemBusTests {
    /// The three monitors of the agent, on one `SystemBus`, with what they last reported.
    final class Monitors {
        let systemBus: SystemBus
        let logind: LogindMonitor
        let metered: NetworkMeteredMonitor
        let profiles: PowerProfilesMonitor
        var meteredValues: [UInt32?] = []
        var profileValues: [String?] = []
        var busStatuses: [SystemBus.Status] = []

        init(loop: EventLoop, address: String) {
            let systemBus = SystemBus(loop: loop, address: .address(address))
            self.systemBus = systemBus
            logind = LogindMonitor(loop: loop, systemBus: systemBus)
            var meteredSink: ((UInt32?) -> Void)?
            var profileSink: ((String?) -> Void)?
            metered = NetworkMeteredMonitor(loop: loop, systemBus: systemBus) { meteredSink?($0) }
            profiles = PowerProfilesMonitor(loop: loop, systemBus: systemBus) { profileSink?($0) }
            meteredSink = { [unowned self] in self.meteredValues.append($0) }
            profileSink = { [unowned self] in self.profileValues.append($0) }
            systemBus.onStatusChange = { [unowned self] in self.busStatuses.append($0) }
        }

        func start() {
            logind.start()
            metered.start()
            profiles.start()
        }

        func stop() {
            logind.stop()
            metered.stop()
            profiles.stop()
        }

        var everyInputRead: Bool {
            logind.status == .watching(logind: true) && metered.status == .watching(networkManager: true)
                && metered.metered == 1 && profiles.profile == "power-saver"
        }
    }

    @Test func logindNetworkManagerAndPowerProfilesShareOneConnection() throws {
        let bus = try PrivateBus()
        let logind = try LogindStandIn(address: bus.address)
        _ = logind
        let networkManager = try NetworkManagerStandIn(address: bus.address, metered: 1)
        defer { networkManager.quit() }
        let profiles = try PowerProfilesStandIn(address: bus.address, profile: "power-saver")
        defer { profiles.quit() }
        let loop = try EventLoop()
        let monitors = Monitors(loop: loop, address: bus.address)
        defer { monitors.stop() }

        monitors.start()
        #expect(runLoop(loop, until: { monitors.everyInputRead && monitors.systemBus.status == .connected }))
        #expect(monitors.systemBus.connectionsOpened == 1)
        #expect(loop.watchCount == 1, "one bus descriptor watched")
        #expect(monitors.systemBus.summary
                == "connected to \(bus.address): one connection for logind, NetworkManager, power-profiles")

        var taken: InhibitorLock?
        monitors.logind.inhibit(what: "sleep", who: "test", why: "shared", mode: "delay") { result in
            taken = try? result.get()
        }
        #expect(runLoop(loop, until: { taken != nil }))
        #expect(taken?.isHeld == true)
        taken?.release()
    }

    @Test func aRestartedBusIsReconnectedWithBackoffAndEveryMonitorReadsAgain() throws {
        let bus = try PrivateBus()
        var logind = try LogindStandIn(address: bus.address)
        var networkManager = try NetworkManagerStandIn(address: bus.address, metered: 1)
        var profiles = try PowerProfilesStandIn(address: bus.address, profile: "power-saver")
        let loop = try EventLoop()
        let monitors = Monitors(loop: loop, address: bus.pathAddress)
        defer { monitors.stop() }

        monitors.start()
        #expect(runLoop(loop, until: { monitors.everyInputRead && monitors.systemBus.status == .connected }))

        // The bus daemon goes: every monitor falls back, the bus says when it tries again.
        try bus.restart()
        #expect(runLoop(loop, until: {
            if case .lost = monitors.systemBus.status { return true }
            if case .reconnecting = monitors.systemBus.status { return true }
            return false
        }))
        #expect(monitors.systemBus.isReconnecting)
        #expect(monitors.systemBus.reconnectNote?.hasPrefix("reconnecting") == true)
        #expect(runLoop(loop, until: { monitors.metered.status.isUnavailable && monitors.profiles.status.isUnavailable }))
        if case .unavailable = monitors.logind.status {} else { Issue.record("logind: \(monitors.logind.status)") }
        #expect(monitors.meteredValues.last == .some(nil))
        #expect(monitors.profileValues.last == .some(nil))

        // The services come back on the new bus; one new connection serves all three again.
        logind = try LogindStandIn(address: bus.pathAddress)
        networkManager = try NetworkManagerStandIn(address: bus.pathAddress, metered: 1)
        profiles = try PowerProfilesStandIn(address: bus.pathAddress, profile: "power-saver")
        defer {
            networkManager.quit()
            profiles.quit()
        }
        _ = logind
        #expect(runLoop(loop, until: { monitors.everyInputRead && monitors.systemBus.status == .connected }))
        #expect(monitors.systemBus.connectionsOpened >= 2)
        #expect(loop.watchCount == 1, "one bus descriptor watched")
        #expect(monitors.busStatuses.contains { if case .lost = $0 { return true } else { return false } })
        #expect(monitors.meteredValues.last == 1)
        #expect(monitors.profileValues.last == "power-saver")
    }

    @Test func oneMonitorLeavingLeavesTheOthersAndTheLastClosesTheBus() throws {
        let bus = try PrivateBus()
        let networkManager = try NetworkManagerStandIn(address: bus.address, metered: 2)
        defer { networkManager.quit() }
        let profiles = try PowerProfilesStandIn(address: bus.address, profile: "balanced")
        defer { profiles.quit() }
        let loop = try EventLoop()
        let monitors = Monitors(loop: loop, address: bus.address)
        monitors.metered.start()
        monitors.profiles.start()
        #expect(runLoop(loop, until: { monitors.metered.metered == 2 && monitors.profiles.profile == "balanced" }))

        monitors.profiles.stop()
        try networkManager.set(1)
        try profiles.set("power-saver")
        #expect(runLoop(loop, until: { monitors.metered.metered == 1 }))
        #expect(monitors.profileValues == ["balanced"])
        #expect(monitors.systemBus.connectionsOpened == 1)

        monitors.metered.stop()
        #expect(monitors.systemBus.status == .stopped)
        #expect(loop.watchCount == 0 && loop.timerCount == 0)
    }
}
