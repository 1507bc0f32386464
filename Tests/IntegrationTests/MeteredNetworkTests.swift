// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import AgentTestSupport
import Foundation
import Testing

/// `RequiresNetwork=unmetered` end to end (issue 15 item 3): a real agentd in a network namespace
/// of its own (the default route is the test's to add), a fake /sys (on AC), and a private
/// dbus-daemon given to it with `--system-bus`, where the NetworkManager stand-in
/// (Tests/NetworkManagerStandIn) owns `org.freedesktop.NetworkManager` and changes `Metered`.
@Suite(.serialized) struct MeteredNetworkTests {
    /// A child process whose stdout lines are collected by a reader thread, so the test waits for
    /// the line it expects with a deadline; stdin is a pipe when asked for.
    final class LineProcess {
        let process = Process()
        private let lines = LogLines()
        private let output = Pipe()
        private let input = Pipe()

        init(_ path: String, _ arguments: [String], withStdin: Bool = false) throws {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = withStdin ? input : FileHandle.nullDevice
            try process.run()
            lines.follow(output)
        }

        deinit { stop() }

        /// The first line (from line `after` on) that satisfies `match`, waiting up to `timeout`.
        func waitForLine(after: Int = 0, timeout: Double = 20, _ match: (String) -> Bool) throws -> String {
            if let found = lines.firstLine(after: after, until: Date().addingTimeInterval(timeout), where: match) {
                return found.line
            }
            throw POSIXError(.ETIMEDOUT)
        }

        var lineCount: Int { lines.lines.withLock { $0.count } }

        func writeLine(_ text: String) {
            input.fileHandleForWriting.write(Data((text + "\n").utf8))
        }

        /// SIGKILL: children of the test process inherit its blocked signals, SIGTERM among them.
        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A private dbus-daemon on a unix socket in the sandbox.
    final class PrivateBus {
        let daemon: LineProcess
        let address: String

        init(directory: String) throws {
            let config = directory + "/bus.conf"
            try """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <listen>unix:path=\(directory)/bus</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow send_destination="*" eavesdrop="true"/>
                    <allow eavesdrop="true"/>
                    <allow own="*"/>
                  </policy>
                </busconfig>

                """.write(toFile: config, atomically: false, encoding: .utf8)
            // Printed once the socket is listening.
            daemon = try LineProcess("/usr/bin/dbus-daemon", ["--config-file=\(config)", "--nofork", "--print-address"])
            address = try daemon.waitForLine { $0.hasPrefix("unix:") }
        }
    }

    /// The NetworkManager stand-in: `Metered` changes through its stdin.
    final class NetworkManager {
        let child: LineProcess

        init(bus: PrivateBus, metered: UInt32) throws {
            child = try LineProcess(Binaries.directory + "/network-manager-stand-in",
                                    ["--metered", String(metered), bus.address], withStdin: true)
            _ = try child.waitForLine { $0 == "ready" }
        }

        /// Sets `Metered`; PropertiesChanged is on the bus when this returns.
        func set(_ value: UInt32) throws {
            let seen = child.lineCount
            child.writeLine(String(value))
            _ = try child.waitForLine(after: seen) { $0 == "set \(value)" }
        }
    }

    /// An agent on AC in a network namespace of its own, on `bus`.
    final class Machine {
        let sandbox: Sandbox
        let sysfs: FakeSysfsTree
        let proc: FakeProcTree
        let agent: AgentProcess

        init(sandbox: Sandbox, bus: PrivateBus, jobs: [String: String]) throws {
            self.sandbox = sandbox
            sysfs = try FakeSysfsTree()
            proc = try FakeProcTree()
            try sysfs.addMains(name: "AC", online: true)
            for (name, text) in jobs { try sandbox.write("jobs.d/\(name).job", text) }
            agent = try AgentProcess(sandbox: sandbox,
                                     extraArguments: ["--sysfs-root", sysfs.sysfsRoot, "--proc-root", proc.procRoot,
                                                      "--simulated-machine", "--system-bus", bus.address],
                                     wrapper: ["/usr/bin/unshare", "-n", "--"])
        }

        /// Brings up loopback in the agent's namespace with a default route through it.
        func addDefaultRoute() throws {
            let pid = String(agent.process.processIdentifier)
            #expect(try runCommand("/usr/bin/nsenter", ["-t", pid, "-n", "ip", "link", "set", "lo", "up"]).status == 0)
            #expect(try runCommand("/usr/bin/nsenter", ["-t", pid, "-n", "ip", "route", "add", "default", "dev", "lo"]).status == 0)
            try agent.waitForLog("inputs: network up")
        }

        func inputs() throws -> [String: Any] {
            let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
            return status?["inputs"] as? [String: Any] ?? [:]
        }

        func waiting(_ id: String) throws -> String? {
            let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
            return pending.first { $0["identifier"] as? String == id }?["waitingFor"] as? String
        }

        deinit { agent.stop() }
    }

    static let looping = "echo started; i=0; while :; do i=$((i+1)); echo PROGRESS=$((i % 100))/100; sleep 0.1; done\n"

    static func job(_ exec: String) -> String {
        "[Job]\nIdentifier=local.fetch\nKind=processing\nExec=\(exec)\nGracePeriod=1s\nRequiresNetwork=unmetered\n"
    }

    @Test func anUnmeteredJobWaitsOnAMeteredNetworkRunsOnAnUnmeteredOneAndIsExpiredOnGuessYes() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let networkManager = try NetworkManager(bus: bus, metered: 1)
        let plugin = try sandbox.script("fetch", Self.looping)
        let machine = try Machine(sandbox: sandbox, bus: bus, jobs: ["fetch": Self.job(plugin)])
        try machine.agent.waitForLog("inputs: metered yes (NetworkManager: yes)")
        try machine.addDefaultRoute()

        #expect(try machine.agent.ctl("trigger", "local.fetch").status == 0)
        try machine.agent.waitForLog("local.fetch: due, deferred: unmetered network")
        #expect(try machine.waiting("local.fetch") == "unmetered network")
        let inputs = try machine.inputs()
        #expect(inputs["metered"] as? String == "yes")
        #expect(inputs["meteredSource"] as? String == "NetworkManager: yes")
        #expect(try machine.agent.ctl("status").stdout.contains("metered    yes (NetworkManager: yes)"))
        #expect(try machine.agent.ctl("metrics").stdout.contains("\nagentd_network_metered 1\n"))

        try networkManager.set(2)
        try machine.agent.waitForLog("inputs: metered no (NetworkManager: no)")
        try machine.agent.waitForLog("[local.fetch r000001] started")
        #expect(try machine.agent.ctl("metrics").stdout.contains("\nagentd_network_metered 0\n"))

        // guess-yes counts as metered: the run is expired, with the network as its reason.
        try networkManager.set(3)
        try machine.agent.waitForLog("inputs: metered yes (NetworkManager: guess-yes)")
        try machine.agent.waitForLog("of local.fetch ended: expired(network)")
        let history = try json(try machine.agent.ctl("history", "local.fetch", "--json").stdout) as? [[String: Any]] ?? []
        #expect(history.first?["stopReason"] as? String == "expired(network)")
        #expect(try machine.inputs()["meteredSource"] as? String == "NetworkManager: guess-yes")
    }

    @Test func withoutNetworkManagerOnTheBusEveryNetworkIsUnmeteredAndTheStatusSaysWhy() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let plugin = try sandbox.script("fetch", "echo started; exit 0\n")
        let machine = try Machine(sandbox: sandbox, bus: bus, jobs: ["fetch": Self.job(plugin)])
        try machine.agent.waitForLog("inputs: networkmanager unavailable: no NetworkManager on the system bus; every network counts as unmetered")
        try machine.addDefaultRoute()
        #expect(try machine.agent.ctl("trigger", "local.fetch").status == 0)
        try machine.agent.waitForLog("of local.fetch ended: success")
        let inputs = try machine.inputs()
        #expect(inputs["metered"] as? String == "no")
        #expect(inputs["meteredSource"] as? String == "no NetworkManager on the system bus")
        let sources = inputs["sources"] as? [[String: Any]] ?? []
        #expect(sources.contains { $0["name"] as? String == "networkmanager" && $0["state"] as? String == "unavailable" })
    }
}
