// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// libsystemd is loaded only for D-Bus, and only once there is a bus to talk to (issue 17): an
/// agent on a machine without one never maps it nor the libraries it needs.
@Suite(.serialized) struct LazySystemdTests {
    /// The files mapped into a process (`/proc/PID/maps`' path column), read to its end with
    /// read(2): the file reports size 0, and one read returns only what fits its buffer.
    static func mappedFiles(_ pid: Int32) throws -> Set<String> {
        let fd = open("/proc/\(pid)/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        let maps = String(decoding: bytes, as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init)
        })
    }

    static func isLibsystemd(_ path: String) -> Bool {
        (path as NSString).lastPathComponent.hasPrefix("libsystemd.so")
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
        // The check reads the right thing: the agent's own libraries are there.
        #expect(mapped.contains { ($0 as NSString).lastPathComponent.hasPrefix("libsqlite3.so") }, "\(mapped.sorted())")
        #expect(!mapped.contains(where: Self.isLibsystemd), "agentd mapped libsystemd with no bus: \(mapped.sorted())")
    }

    @Test func anAgentLoadsLibsystemdOnceItConnectsToABusAndReadsIt() throws {
        let sandbox = try Sandbox()
        let bus = try MeteredNetworkTests.PrivateBus(directory: sandbox.root)
        let networkManager = try MeteredNetworkTests.NetworkManager(bus: bus, metered: 1)
        _ = networkManager
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--system-bus", bus.address])
        defer { agent.stop() }
        try agent.waitForLog("inputs: metered yes (NetworkManager: yes)")
        let mapped = try Self.mappedFiles(agent.process.processIdentifier)
        #expect(mapped.contains(where: Self.isLibsystemd), "agentd read the bus without libsystemd mapped? \(mapped.sorted())")
    }

    /// A libsystemd that cannot be loaded (here: a file of that name that is no ELF object, found
    /// first through LD_LIBRARY_PATH) leaves the agent running with the input treated as when there
    /// is no bus, and says what failed and what to do.
    @Test func aLibsystemdThatCannotBeLoadedLeavesTheInputUnavailableAndSaysWhatToDo() throws {
        let sandbox = try Sandbox()
        let bus = try MeteredNetworkTests.PrivateBus(directory: sandbox.root)
        let networkManager = try MeteredNetworkTests.NetworkManager(bus: bus, metered: 1)
        _ = networkManager
        let libraries = sandbox.root + "/broken-libs"
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        try "not a shared object\n".write(toFile: libraries + "/libsystemd.so.0", atomically: false, encoding: .utf8)
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--system-bus", bus.address],
                                     environment: ["LD_LIBRARY_PATH": libraries])
        defer { agent.stop() }
        // Every bus input reads the one --system-bus connection (power-profiles and logind too),
        // and each says it.
        let line = try agent.waitForLog("system-bus unavailable: no D-Bus system bus (cannot load libsystemd.so.0 for D-Bus")
        try agent.waitForLog("networkmanager unavailable: no D-Bus system bus (cannot load libsystemd.so.0 for D-Bus")
        try agent.waitForLog("power-profiles unavailable: no D-Bus system bus (cannot load libsystemd.so.0 for D-Bus")
        #expect(line.contains("install the libsystemd0 package, then restart agentd"), "\(line)")
        #expect(try agent.ctl("status").status == 0)
        let mapped = try Self.mappedFiles(agent.process.processIdentifier)
        #expect(!mapped.contains(where: Self.isLibsystemd), "\(mapped.sorted())")
    }
}
