// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import AgentTestSupport
import Foundation
import Testing

/// DESIGN §6 end to end (issue #5): a real agentd in a network namespace of its own, a fake
/// /sys and /proc, and real netlink — the test changes the fake tree, then injects a uevent as
/// root into the agent's namespace, and watches the agent react through its log and agentctl.
@Suite(.serialized) struct PolicyTests {
    /// An agent on a laptop (AC adapter + battery) in its own network namespace.
    final class Machine {
        let sandbox: Sandbox
        let sysfs: FakeSysfsTree
        let proc: FakeProcTree
        let agent: AgentProcess
        let injector: UeventInjector

        /// `routed`: the namespace has loopback up and a default route through it before agentd
        /// starts (a connected machine).
        init(conf: String = "", routed: Bool = false, jobs: [String: String],
             setUp: (FakeSysfsTree, FakeProcTree) throws -> Void = { _, _ in }) throws {
            sandbox = try Sandbox()
            sysfs = try FakeSysfsTree()
            proc = try FakeProcTree()
            try sysfs.addMains(name: "AC", online: true)
            try sysfs.addBattery(name: "BAT0", capacity: 80, status: "Charging")
            try setUp(sysfs, proc)
            if !conf.isEmpty { try sandbox.write("agentd.conf", conf) }
            for (name, text) in jobs { try sandbox.write("jobs.d/\(name).job", text) }
            agent = try AgentProcess(sandbox: sandbox,
                                     extraArguments: ["--sysfs-root", sysfs.sysfsRoot, "--proc-root", proc.procRoot,
                                                      "--simulated-machine", "--log-timestamps", "--bench-probes"],
                                     wrapper: ["/usr/bin/unshare", "-n", "--"] + (routed ? Self.routing : []))
            injector = try UeventInjector(networkNamespaceOf: agent.process.processIdentifier)
        }

        /// Execs its arguments once the namespace has a default route.
        static let routing = ["/bin/sh", "-c", "ip link set lo up && ip route add default dev lo && exec \"$@\"", "sh"]

        /// A power_supply uevent, as the kernel sends when the adapter or battery changes.
        func powerChanged() throws {
            try injector.send(UeventInjector.powerSupplyChange(name: "AC"))
        }

        func unplug(battery percent: Int = 80) throws {
            try sysfs.setOnline("AC", false)
            try sysfs.setStatus("BAT0", "Discharging")
            try sysfs.setCapacity("BAT0", percent)
            try powerChanged()
        }

        func plugIn() throws {
            try sysfs.setOnline("AC", true)
            try sysfs.setStatus("BAT0", "Charging")
            try powerChanged()
        }

        /// A thermal uevent for zone 0 (a hint to re-read the zones).
        func thermalChanged() throws {
            let devpath = "/devices/virtual/thermal/thermal_zone0"
            try injector.send(Uevent(action: "change", devpath: devpath,
                                     properties: ["ACTION": "change", "DEVPATH": devpath, "SUBSYSTEM": "thermal"]))
        }

        func inputs() throws -> [String: Any] {
            let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
            return status?["inputs"] as? [String: Any] ?? [:]
        }

        func waiting(_ id: String) throws -> String? {
            let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
            return pending.first { $0["identifier"] as? String == id }?["waitingFor"] as? String
        }


        deinit {
            agent.stop()
            injector.close()
        }
    }

    static let looping = "i=0; while :; do i=$((i+1)); echo PROGRESS=$((i % 100))/100; sleep 0.1; done\n"

    static func job(_ name: String, kind: String = "processing", exec: String, extra: String = "") -> String {
        "[Job]\nIdentifier=local.\(name)\nKind=\(kind)\nExec=\(exec)\nInterval=1h\nGracePeriod=1s\n\(extra)"
    }

    // MARK: power

    @Test func unpluggingExpiresJobsThatNeedExternalPowerAndStatusSaysBattery() throws {
        let sandbox = try Sandbox()
        let loop = try sandbox.script("loop", Self.looping)
        let machine = try Machine(jobs: [
            "backup": Self.job("backup", exec: loop, extra: "RequiresExternalPower=yes\n"),
            "index": Self.job("index", kind: "refresh", exec: loop, extra: "MaxRuntime=1h\n"),
        ])
        try machine.agent.waitForLog("of local.backup started")
        try machine.agent.waitForLog("of local.index started")
        #expect(try machine.inputs()["power"] as? String == "ac")
        try machine.unplug(battery: 60)
        try machine.agent.waitForLog("of local.backup ended: expired(power)")
        let inputs = try machine.inputs()
        #expect(inputs["power"] as? String == "battery")
        #expect(inputs["batteryPercent"] as? Int == 60)
        #expect(inputs["batteryStatus"] as? String == "discharging")
        let running = try json(try machine.agent.ctl("status", "--json").stdout) as? [String: Any]
        let ids = (running?["running"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
        #expect(ids == ["local.index"])
    }

    @Test func aJobThatNeedsExternalPowerWaitsOnBatteryAndStartsWhenPluggedIn() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(jobs: ["backup": Self.job("backup", exec: quick, extra: "RequiresExternalPower=yes\n")]) { sysfs, _ in
            try sysfs.setOnline("AC", false)
            try sysfs.setStatus("BAT0", "Discharging")
        }
        try machine.agent.waitForLog("local.backup: due, deferred: external power")
        #expect(try machine.waiting("local.backup") == "external power")
        let explain = try machine.agent.ctl("explain", "local.backup")
        #expect(explain.stdout.contains("deferred: external power"))
        try machine.plugIn()
        try machine.agent.waitForLog("of local.backup ended: success")
    }

    @Test func pausingOnConditionLostFreezesTheRunAndThawsItWhenPowerReturns() throws {
        let sandbox = try Sandbox()
        let loop = try sandbox.script("steps", "i=0; while :; do i=$((i+1)); echo PROGRESS=$((i % 100))/100; echo step $i; sleep 0.05; done\n")
        let machine = try Machine(jobs: ["sync": Self.job("sync", exec: loop,
                                                          extra: "RequiresExternalPower=yes\nOnConditionLost=pause\nMaxRuntime=1h\n")])
        try machine.agent.waitForLog("of local.sync started")
        try machine.agent.waitForLog("] step 2")
        try machine.unplug()
        try machine.agent.waitForLog("paused (external power)")
        let status = try json(try machine.agent.ctl("status", "--json").stdout) as? [String: Any]
        let run = (status?["running"] as? [[String: Any]])?.first
        #expect(run?["paused"] as? String == "external power")
        // Frozen: once the kernel says so and the agent has read what was already in the pipe
        // (two status round trips: the second is answered after the iteration that read it), no
        // new step comes over a 0.5 s measurement window (a running plugin prints one every 50 ms).
        func steps() -> Int { machine.agent.logLines.filter { $0.contains("] step ") }.count }
        let pluginPID = (run?["pid"] as? Int).map(Int32.init) ?? 0
        #expect(ProcessInspection.waitUntilFrozen(pluginPID))
        _ = try machine.agent.ctl("status", "--json")
        _ = try machine.agent.ctl("status", "--json")
        let settled = steps()
        _ = try runCommand("/bin/sleep", ["0.5"])  // the measurement window, not a wait for an event
        #expect(steps() == settled)
        try machine.plugIn()
        try machine.agent.waitForLog("resumed after")
        try machine.agent.waitForLog("] step \(settled + 1)")
        #expect(!machine.agent.logLines.contains { $0.contains("of local.sync ended") })
    }

    @Test func aFloodOfUeventsCostsAFewRereadsAndTheChangeAfterItIsStillSeen() throws {
        let machine = try Machine(jobs: [:])
        for _ in 0..<2000 { try machine.powerChanged() }
        try machine.unplug(battery: 55)
        try machine.agent.waitForLog("inputs: on battery, battery 55% (discharging)")
        let rereads = machine.agent.logLines.filter { $0.contains("inputs: sysfs re-read") }.count
        #expect(rereads >= 1 && rereads < 100, "\(rereads) re-reads for 2,001 uevents")
    }

    // MARK: battery

    /// A battery that drains on AC (a weak charger, a dock) is shown as the kernel says it,
    /// discharging, though the policy counts the machine as on external power (helper-37).
    @Test func aBatteryDrainingOnACShowsAsDischarging() throws {
        let machine = try Machine(jobs: [:])
        try machine.sysfs.setStatus("BAT0", "Discharging")
        try machine.sysfs.setCapacity("BAT0", 70)
        try machine.powerChanged()
        try machine.agent.waitForLog("inputs: on AC, battery 70% (discharging)")
        #expect(try machine.inputs()["power"] as? String == "ac")
    }

    @Test func aLowBatteryDefersDiscretionaryWorkAndACriticalOneRefusesSubmissions() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(jobs: [
            "feed": Self.job("feed", kind: "refresh", exec: quick),
            "export": "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(quick)\n",
        ]) { sysfs, _ in
            try sysfs.setOnline("AC", false)
            try sysfs.setStatus("BAT0", "Discharging")
            try sysfs.setCapacity("BAT0", 15)
        }
        try machine.agent.waitForLog("local.feed: due, deferred: battery low (15%)")
        #expect(try machine.waiting("local.feed") == "battery low (15%)")
        try machine.unplug(battery: 4)
        try machine.agent.waitForLog("inputs: on battery, battery 4% (discharging)")
        let refused = try machine.agent.ctl("submit", "local.export")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("battery critical (4%)"))
        #expect(refused.stderr.contains("plug in external power"))
        // Nor does a run by hand start, policy bypassed: it would be stopped at once, as every run
        // is (it used to start, and run until the next battery event; helper-43).
        let byHand = try machine.agent.ctl("run", "local.feed")
        #expect(byHand.status == 5, "\(byHand)")
        #expect(byHand.stderr.contains("local.feed cannot start now: battery critical (4%) stops every run, even one "
            + "started by hand; plug in external power, then run it again"), "\(byHand.stderr)")
        #expect(!machine.agent.logLines.contains { $0.contains("of local.feed started") })
    }

    // MARK: thermal

    @Test func crossingAPassiveTripExpiresDiscretionaryRunsAsThermal() throws {
        let sandbox = try Sandbox()
        let loop = try sandbox.script("loop", Self.looping)
        let machine = try Machine(jobs: ["render": Self.job("render", exec: loop)]) { sysfs, _ in
            try sysfs.addThermalZone(index: 0, type: "x86_pkg_temp", tempC: 50,
                                     trips: [("passive", 90), ("critical", 105)])
        }
        try machine.agent.waitForLog("of local.render started")
        #expect(try machine.inputs()["thermal"] as? String == "nominal")
        try machine.sysfs.setTemperature(zone: 0, tempC: 92)
        try machine.thermalChanged()
        try machine.agent.waitForLog("of local.render ended: expired(thermal)")
        let inputs = try machine.inputs()
        #expect(inputs["thermal"] as? String == "serious")
        #expect(inputs["hottestZone"] as? String == "x86_pkg_temp")
    }

    /// docs/agentd.md: a zone is sampled when work becomes due, so a launch sees the current
    /// state. An idle agent's last reading is old: a request must wait for the heat, not start
    /// and be expired at once.
    @Test func aRequestToAnIdleAgentSeesTheZonesAsTheyAreNow() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "echo ran\n")
        let machine = try Machine(jobs: ["crunch": "[Job]\nIdentifier=local.crunch\nKind=processing\nExec=\(quick)\n"]) { sysfs, _ in
            try sysfs.addThermalZone(index: 0, type: "x86_pkg_temp", tempC: 50,
                                     trips: [("passive", 90), ("critical", 105)])
        }
        #expect(try machine.inputs()["thermal"] as? String == "nominal")
        // Hotter with no event: nothing but a fresh reading can tell.
        try machine.sysfs.setTemperature(zone: 0, tempC: 95)
        let asked = try machine.agent.ctl("request", "local.crunch")
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdout.contains("waiting: thermal serious"), "\(asked.stdout)")
        #expect(!machine.agent.logLines.contains { $0.contains("of local.crunch started") })
    }

    /// Sampled PSI (no trigger: a fake /proc) is read before a decision as the zones are: a
    /// RequiresIdle= request to an idle agent waits for a busy CPU, not only at the next sample.
    @Test func aRequestSeesCPUPressureReadAtTheDecision() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(jobs: ["idle": "[Job]\nIdentifier=local.idle\nKind=processing\nExec=\(quick)\nRequiresIdle=yes\n"]) { _, proc in
            try proc.setPressure("cpu", someAvg10: 0)
        }
        try machine.proc.setPressure("cpu", someAvg10: 60)
        let asked = try machine.agent.ctl("request", "local.idle")
        #expect(asked.status == 0 && asked.stdout.contains("waiting: idle CPU"), "\(asked.stdout)\(asked.stderr)")
        #expect(!machine.agent.logLines.contains { $0.contains("of local.idle started") })
    }

    // MARK: network

    @Test func aJobThatNeedsTheNetworkWaitsForADefaultRoute() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(jobs: ["sync": Self.job("sync", kind: "refresh", exec: quick, extra: "RequiresNetwork=yes\n")])
        try machine.agent.waitForLog("local.sync: due, deferred: network")
        #expect(try machine.waiting("local.sync") == "network")
        #expect(try machine.inputs()["network"] as? Bool == false)
        let pid = String(machine.agent.process.processIdentifier)
        #expect(try runCommand("/usr/bin/nsenter", ["-t", pid, "-n", "ip", "link", "set", "lo", "up"]).status == 0)
        #expect(try runCommand("/usr/bin/nsenter", ["-t", pid, "-n", "ip", "route", "add", "default", "dev", "lo"]).status == 0)
        try machine.agent.waitForLog("of local.sync ended: success")
        #expect(try machine.inputs()["network"] as? Bool == true)
    }

    /// The routes are read before the first decision: an agent started on a connected machine
    /// never says the network is down (it did, until its first route dump was answered), and a
    /// job that needs the network runs at once.
    @Test func anAgentStartedWithADefaultRouteNeverSaysTheNetworkIsDown() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(routed: true, jobs: ["sync": Self.job("sync", kind: "refresh", exec: quick, extra: "RequiresNetwork=yes\n")])
        try machine.agent.waitForLog("of local.sync ended: success")
        #expect(try machine.inputs()["network"] as? Bool == true)
        let wrong = machine.agent.logLines.filter { $0.contains("network down") || $0.contains("deferred: network") }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    // MARK: pressure

    @Test func memoryPressureExpiresTheLeastProgressContinuedRunFirst() throws {
        let sandbox = try Sandbox()
        let slow = try sandbox.script("slow", "echo PROGRESS=10/100; echo reported; while :; do echo PROGRESS=10/100; sleep 0.1; done\n")
        let fast = try sandbox.script("fast", "echo PROGRESS=90/100; echo reported; while :; do echo PROGRESS=90/100; sleep 0.1; done\n")
        let machine = try Machine(jobs: [
            "slow": "[Job]\nIdentifier=local.slow\nKind=continued\nExec=\(slow)\nGracePeriod=1s\n",
            "fast": "[Job]\nIdentifier=local.fast\nKind=continued\nExec=\(fast)\nGracePeriod=1s\n",
        ])
        #expect(try machine.agent.ctl("submit", "local.fast").status == 0)
        #expect(try machine.agent.ctl("submit", "local.slow").status == 0)
        // Each prints "reported" right after its first PROGRESS= line.
        try machine.agent.waitForLog("[local.fast r000001] reported")
        try machine.agent.waitForLog("[local.slow r000002] reported")
        try machine.proc.setPressure("memory", someAvg10: 40)
        // The fake /proc has no PSI trigger to wake the agent: SIGHUP re-reads every input.
        kill(machine.agent.process.processIdentifier, SIGHUP)
        try machine.agent.waitForLog("of local.slow ended: expired(pressure)")
        #expect(try machine.inputs()["memoryPressure"] as? Bool == true)
        #expect(!machine.agent.logLines.contains { $0.contains("of local.fast ended") })
    }

    // MARK: low power and resources

    @Test func lowPowerModeFromAgentctlDefersProcessingOnBattery() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(jobs: ["clean": Self.job("clean", exec: quick)]) { sysfs, _ in
            try sysfs.setOnline("AC", false)
            try sysfs.setStatus("BAT0", "Discharging")
            try sysfs.setPlatformProfile("low-power")
        }
        try machine.agent.waitForLog("local.clean: due, deferred: low-power mode")
        #expect(try machine.waiting("local.clean") == "low-power mode")
        #expect(try machine.inputs()["lowPowerSource"] as? String == "auto (platform_profile)")
        #expect(try machine.agent.ctl("lowpower", "off").status == 0)
        try machine.agent.waitForLog("of local.clean ended: success")
        #expect(try machine.inputs()["lowPowerSource"] as? String == "off (agentctl)")
    }

    /// The kernel tells a platform profile change with sysfs_notify, not a uevent: a decision
    /// reads the profile as it is now, so a request after the switch waits on battery.
    @Test func aPlatformProfileSwitchedWithoutAnEventIsSeenByTheNextDecision() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(jobs: ["clean": "[Job]\nIdentifier=local.clean\nKind=processing\nExec=\(quick)\n"]) { sysfs, _ in
            try sysfs.setOnline("AC", false)
            try sysfs.setStatus("BAT0", "Discharging")
            try sysfs.setPlatformProfile("balanced")
        }
        #expect(try machine.inputs()["lowPower"] as? Bool == false)
        try machine.sysfs.setPlatformProfile("low-power")
        let asked = try machine.agent.ctl("request", "local.clean")
        #expect(asked.status == 0 && asked.stdout.contains("waiting: low-power mode"), "\(asked.stdout)\(asked.stderr)")
        #expect(try machine.inputs()["lowPowerSource"] as? String == "auto (platform_profile)")
    }

    @Test func aGPUJobIsRefusedOnAMachineWithoutOne() throws {
        let sandbox = try Sandbox()
        let quick = try sandbox.script("quick", "exit 0\n")
        let machine = try Machine(jobs: ["render": "[Job]\nIdentifier=local.render\nKind=continued\nExec=\(quick)\nResources=gpu\n"])
        let refused = try machine.agent.ctl("submit", "local.render")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("resource gpu"))
        #expect(refused.stderr.contains("agentctl resources"))
        let resources = try json(try machine.agent.ctl("resources", "--json").stdout) as? [String: Any]
        #expect((resources?["gpus"] as? [Any])?.isEmpty ?? true)
    }

    /// DESIGN §7 `expired(resource)`: an eGPU unplugged under a run that named it in
    /// `Resources=` expires that run (a drm uevent is the hint to look again), and not one that
    /// did not; plugged back, the GPU is listed again.
    @Test func unpluggingAGPUExpiresTheRunsThatNeedIt() throws {
        let sandbox = try Sandbox()
        let loop = try sandbox.script("loop", Self.looping)
        let machine = try Machine(jobs: [
            "render": Self.job("render", exec: loop, extra: "Resources=gpu\nMaxRuntime=1h\n"),
            "index": Self.job("index", exec: loop, extra: "MaxRuntime=1h\n"),
        ], setUp: { sysfs, _ in try sysfs.addDRMCard(index: 1, driver: "amdgpu") })
        try machine.agent.waitForLog("of local.render started")
        try machine.agent.waitForLog("of local.index started")
        let devpath = "/devices/pci0000:00/0000:00:1c.0/0000:05:00.0/drm/card1"
        func drmEvent(_ action: String) throws {
            try machine.injector.send(Uevent(action: action, devpath: devpath,
                                             properties: ["ACTION": action, "DEVPATH": devpath, "SUBSYSTEM": "drm"]))
        }
        try machine.sysfs.removeDRMCard(index: 1)
        try drmEvent("remove")
        try machine.agent.waitForLog("of local.render ended: expired(resource)")
        let resources = try json(try machine.agent.ctl("resources", "--json").stdout) as? [String: Any]
        #expect((resources?["gpus"] as? [Any])?.isEmpty == true, "\(resources ?? [:])")
        let running = try json(try machine.agent.ctl("status", "--json").stdout) as? [String: Any]
        let ids = (running?["running"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
        #expect(ids == ["local.index"])

        try machine.sysfs.addDRMCard(index: 1, driver: "amdgpu")
        try drmEvent("add")
        try machine.agent.waitForLog("inputs: resources [\"gpu\"]")
    }
}
