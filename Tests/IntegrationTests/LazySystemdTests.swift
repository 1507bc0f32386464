// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// libsystemd is loaded only for D-Bus, and only once there is a bus to talk to (issue 17): an
/// agent on a machine without one never maps it nor the libraries it needs.
@Suite(.serialized) struct LazySystemdTests {
    /// The files mapped into a process (`/proc/PID/maps`' path column).
    static func mappedFiles(_ pid: Int32) throws -> Set<String> {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init)
        })
    }

    static func mapsLibsystemd(_ pid: Int32) throws -> Bool {
        try mappedFiles(pid).contains { ($0 as NSString).lastPathComponent.hasPrefix("libsystemd.so") }
    }

    @Test func anAgentWithNoBusToTalkToNeverLoadsLibsystemd() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/a.job", sandbox.jobFile("a"))
        let nowhere = "unix:path=\(sandbox.root)/no-bus"
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--system-bus", nowhere],
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": nowhere])
        defer { agent.stop() }
        #expect(try agent.ctl("status").status == 0)
        let pid = agent.process.processIdentifier
        let mapped = try Self.mappedFiles(pid)
        #expect(!mapped.contains { ($0 as NSString).lastPathComponent.hasPrefix("libsystemd.so") },
                "agentd mapped libsystemd with no bus: \(mapped.sorted())")
    }

    @Test func anAgentLoadsLibsystemdOnceItConnectsToABusAndReadsIt() throws {
        let sandbox = try Sandbox()
        let bus = try MeteredNetworkTests.PrivateBus(directory: sandbox.root)
        let networkManager = try MeteredNetworkTests.NetworkManager(bus: bus, metered: 1)
        _ = networkManager
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--system-bus", bus.address])
        defer { agent.stop() }
        try agent.waitForLog("inputs: metered yes (NetworkManager: yes)")
        #expect(try Self.mapsLibsystemd(agent.process.processIdentifier))
    }
}
