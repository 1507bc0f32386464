// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import AgentTestSupport
import Foundation
import Testing

/// One system bus (issue 30 item 5, DESIGN §6): a real agentd reads systemd-logind,
/// NetworkManager and power-profiles-daemon from the bus `--system-bus` names through one
/// connection; when the bus goes away and comes back, that connection is opened again with
/// backoff and every input returns, while `status` says the bus is being reconnected. The bus is
/// a private dbus-daemon with the three C stand-ins on it.
@Suite(.serialized) struct SystemBusTests {
    typealias LineProcess = MeteredNetworkTests.LineProcess
    typealias PrivateBus = MeteredNetworkTests.PrivateBus
    typealias NetworkManager = MeteredNetworkTests.NetworkManager
    typealias Logind = SleepInhibitorTests.Logind

    /// The three services the agent reads, on one bus.
    struct Services {
        let logind: Logind
        let networkManager: NetworkManager
        let profiles: LineProcess

        init(bus: PrivateBus) throws {
            logind = try Logind(bus: bus, delay: .seconds(5))
            networkManager = try NetworkManager(bus: bus, metered: 1)
            profiles = try LineProcess(Binaries.directory + "/power-profiles-stand-in",
                                       ["--profile", "power-saver", bus.address], withStdin: true)
            _ = try profiles.waitForLine { $0 == "ready" }
        }
    }

    /// The unique names on the bus at `address` whose connection belongs to process `pid`
    /// (`busctl list` names each peer's process, as the bus daemon knows it).
    static func connections(of pid: Int32, on address: String) throws -> [String] {
        let listed = try runCommand("/usr/bin/busctl", ["--address=\(address)", "list", "--unique", "--no-legend",
                                                         "--no-pager"])
        #expect(listed.status == 0, "busctl list: \(listed.stderr)")
        return listed.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, String(fields[1]) == String(pid) else { return nil }
            return String(fields[0])
        }
    }

    static func inputs(_ agent: AgentProcess) throws -> [String: Any] {
        (try json(try agent.ctl("status", "--json").stdout) as? [String: Any])?["inputs"] as? [String: Any] ?? [:]
    }

    static func source(_ name: String, _ inputs: [String: Any]) -> [String: Any] {
        (inputs["sources"] as? [[String: Any]] ?? []).first { $0["name"] as? String == name } ?? [:]
    }

    static let work = "[Job]\nIdentifier=local.index\nKind=processing\nExec=%@\nGracePeriod=1s\n"

    /// Waits until every input is read from the bus: metered (NetworkManager), low-power mode
    /// (power-profiles-daemon), and the sleep inhibitor a live run wants (logind).
    static func waitForEveryInput(_ agent: AgentProcess, _ services: Services, after mark: Int,
                                  sleepLockAfter: Int = 0) throws {
        try agent.waitForLog("metered yes (NetworkManager: yes)", after: mark, timeout: 30)
        try agent.waitForLog("low-power mode on", after: mark, timeout: 30)
        try services.logind.waitFor(SleepInhibitorTests.sleepLock, after: sleepLockAfter, timeout: 30)
        let inputs = try Self.inputs(agent)
        #expect(inputs["metered"] as? String == "yes")
        #expect(inputs["lowPowerSource"] as? String == "auto (power-profiles-daemon)")
        #expect(inputs["inhibitors"] as? [String] == ["sleep delay"])
    }

    @Test func logindNetworkManagerAndPowerProfilesAreReadThroughOneConnection() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let services = try Services(bus: bus)
        let plugin = try sandbox.script("work", SleepInhibitorTests.stubborn)
        try sandbox.write("jobs.d/index.job", String(format: Self.work, plugin))
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--simulated-machine", "--system-bus", bus.address])
        #expect(try agent.ctl("trigger", "local.index").status == 0)
        try Self.waitForEveryInput(agent, services, after: 0)

        let names = try Self.connections(of: agent.process.processIdentifier, on: bus.address)
        #expect(names.count == 1, "agentd's connections: \(names)")
        let bus0 = Self.source("system-bus", try Self.inputs(agent))
        #expect(bus0["state"] as? String == "live")
        #expect(bus0["detail"] as? String
                == "connected to \(bus.address): one connection for power-profiles, NetworkManager, logind")
    }

    /// No bus at all: said once at the start, not again when the bus's own report of the same
    /// state reaches the loop after it.
    @Test func aMissingBusIsReportedOnce() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--simulated-machine", "--system-bus",
                                                                         "unix:path=\(sandbox.root)/no-bus"])
        try agent.waitForLog("ready:")
        // Two round trips: the first loop iteration, which runs what the start deferred, is over.
        #expect(try agent.ctl("status").status == 0)
        #expect(try agent.ctl("status").status == 0)
        let lines = agent.logLines.filter { $0.contains("inputs: system-bus") }
        #expect(lines.count == 1, "\(lines)")
    }

    @Test func aLostBusIsReconnectedWithBackoffAndEveryInputComesBack() throws {
        let sandbox = try Sandbox()
        let first = try PrivateBus(directory: sandbox.root)
        var services = try Services(bus: first)
        let plugin = try sandbox.script("work", SleepInhibitorTests.stubborn)
        try sandbox.write("jobs.d/index.job", String(format: Self.work, plugin))
        // The address without the first daemon's guid, as a system bus address is written.
        let address = "unix:path=\(sandbox.root)/bus"
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--simulated-machine", "--system-bus", address])
        #expect(try agent.ctl("trigger", "local.index").status == 0)
        try Self.waitForEveryInput(agent, services, after: 0)

        // dbus-daemon goes (restarted, upgraded): each input falls back and status says the bus
        // is being reconnected.
        let lost = agent.logLines.count
        first.daemon.stop()
        try agent.waitForLog("inputs: system-bus unavailable: lost: bus connection lost", after: lost)
        try agent.waitForLog("metered no (no system bus)", after: lost)
        try agent.waitForLog("low-power mode off", after: lost)
        let down = try Self.inputs(agent)
        let bus = Self.source("system-bus", down)
        #expect(bus["state"] as? String == "unavailable")
        #expect((bus["detail"] as? String)?.contains("reconnecting in") == true, "\(bus)")
        for name in ["power-profiles", "networkmanager", "logind"] {
            let source = Self.source(name, down)
            #expect(source["state"] as? String == "unavailable", "\(source)")
            #expect((source["detail"] as? String)?.contains("reconnecting") == true, "\(source)")
        }
        #expect(down["metered"] as? String == "no")
        #expect(down["lowPower"] as? Bool == false)
        #expect(down["inhibitors"] as? [String] == [])

        // It comes back at the same address, with the services on it: one new connection, the
        // matches installed again, every property read again, the sleep lock taken again.
        let second = try PrivateBus(directory: sandbox.root)
        services = try Services(bus: second)
        try agent.waitForLog("inputs: system-bus live: connected", after: lost, timeout: 30)
        try Self.waitForEveryInput(agent, services, after: lost)
        let names = try Self.connections(of: agent.process.processIdentifier, on: second.address)
        #expect(names.count == 1, "agentd's connections: \(names)")
        let up = try Self.inputs(agent)
        for name in ["system-bus", "power-profiles", "networkmanager", "logind"] {
            #expect(Self.source(name, up)["state"] as? String == "live", "\(Self.source(name, up))")
        }
    }
}
