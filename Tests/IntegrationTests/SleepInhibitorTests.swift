// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import AgentTestSupport
import Foundation
import Testing

/// Laptops sleep (issue 30, DESIGN §6): a real agentd given a private dbus-daemon with
/// `--system-bus`, where the login1 stand-in (Tests/LogindStandIn) owns `org.freedesktop.login1`,
/// hands out inhibitor descriptors and reports when agentd closes them, and sends
/// `PrepareForSleep` on command. Nothing is ever suspended.
@Suite(.serialized) struct SleepInhibitorTests {
    typealias LineProcess = MeteredNetworkTests.LineProcess
    typealias PrivateBus = MeteredNetworkTests.PrivateBus

    /// The login1 stand-in: commands through stdin, inhibitors seen taken and released on stdout.
    final class Logind {
        let child: LineProcess

        init(bus: PrivateBus, delay: Duration) throws {
            let micros = delay.components.seconds * 1_000_000
            child = try LineProcess(Binaries.directory + "/login1-stand-in",
                                    ["--delay-usec", String(micros), bus.address], withStdin: true)
            _ = try child.waitForLine { $0 == "ready" }
        }

        /// Sends a command and waits for its acknowledgement line.
        func send(_ command: String, acknowledged: String) throws {
            let seen = child.lineCount
            child.writeLine(command)
            _ = try child.waitForLine(after: seen) { $0 == acknowledged }
        }

        /// Waits for a stand-in line starting with `prefix` from line `after` on.
        @discardableResult
        func waitFor(_ prefix: String, after: Int = 0, timeout: Double = 20) throws -> String {
            try child.waitForLine(after: after, timeout: timeout) { $0.hasPrefix(prefix) }
        }

        var lineCount: Int { child.lineCount }
    }

    static let sleepLock = "inhibit what=sleep who=agentd mode=delay"
    static let sleepRelease = "released what=sleep who=agentd mode=delay"

    /// A plugin that reports progress and ignores SIGTERM: only SIGKILL ends it.
    static let stubborn = "trap '' TERM; echo started; i=0; while :; do i=$((i+1)); echo PROGRESS=$((i % 100))/100; sleep 0.1; done\n"

    static func agent(_ sandbox: Sandbox, bus: PrivateBus, jobs: [String: String]) throws -> AgentProcess {
        for (name, text) in jobs { try sandbox.write("jobs.d/\(name).job", text) }
        return try AgentProcess(sandbox: sandbox, extraArguments: ["--simulated-machine", "--system-bus", bus.address])
    }

    @Test func beforeSleepAPausableRunIsFrozenAnotherExpiredAndTheLockGoesWithinTheDelay() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let logind = try Logind(bus: bus, delay: .seconds(4))
        let plugin = try sandbox.script("work", Self.stubborn)
        let agent = try Self.agent(sandbox, bus: bus, jobs: [
            "index": "[Job]\nIdentifier=local.index\nKind=processing\nExec=\(plugin)\nGracePeriod=30s\n",
            "backup": "[Job]\nIdentifier=local.backup\nKind=processing\nExec=\(plugin)\nOnConditionLost=pause\n",
        ])
        // The lock is taken once a run is live (it may wait for logind's first answer).
        #expect(try agent.ctl("trigger", "local.index").status == 0)
        try agent.waitForLog("[local.index r000001] started")
        try logind.waitFor(Self.sleepLock)
        #expect(try agent.ctl("trigger", "local.backup").status == 0)
        try agent.waitForLog("[local.backup r000002] started")
        let inputs = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let held = (inputs?["inputs"] as? [String: Any])?["inhibitors"] as? [String]
        #expect(held == ["sleep delay"])

        let events = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["sleep", "resume", "run-ended"]])
        let before = logind.lineCount
        let asked = Date()
        try logind.send("sleep", acknowledged: "signal PrepareForSleep true")
        try logind.waitFor(Self.sleepRelease, after: before, timeout: 10)
        let took = Date().timeIntervalSince(asked)
        // GracePeriod=30s, shortened to half of InhibitDelayMaxUSec=4s: SIGKILL after 2 s.
        #expect(took < 4, "the lock went \(took) s after PrepareForSleep(true), past logind's 4 s")
        try agent.waitForLog("of local.index ended: expired(sleep)")
        try agent.waitForLog("run r000002 of local.backup: paused (machine about to sleep)")
        #expect(try agent.ctl("status").stdout.contains("about to sleep"))

        let woke = logind.lineCount
        try logind.send("wake", acknowledged: "signal PrepareForSleep false")
        try logind.waitFor(Self.sleepLock, after: woke)
        try agent.waitForLog("run r000002 of local.backup: resumed after")
        // The stream says it: sleep, the expired run's end, resume.
        let seen = try events.events(until: { $0["type"] as? String == "resume" })
        #expect(seen.map { $0["type"] as? String ?? "" } == ["sleep", "run-ended", "resume"])
        #expect(seen.dropFirst().first?["stopReason"] as? String == "expired(sleep)")
        let history = try json(try agent.ctl("history", "local.index", "--json").stdout) as? [[String: Any]] ?? []
        #expect(history.first?["stopReason"] as? String == "expired(sleep)")

        // The last run ends: the lock goes.
        let ending = logind.lineCount
        #expect(try agent.ctl("cancel", "local.backup").status == 0)
        try logind.waitFor(Self.sleepRelease, after: ending)
    }

    @Test func aContinuedJobThatSaysOnSleepExpireIsExpiredBeforeSleepNotFrozen() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let logind = try Logind(bus: bus, delay: .seconds(4))
        let plugin = try sandbox.script("stream", Self.stubborn)
        let agent = try Self.agent(sandbox, bus: bus, jobs: [
            "stream": "[Job]\nIdentifier=local.stream\nKind=continued\nExec=\(plugin)\nOnSleep=expire\nGracePeriod=30s\n",
        ])
        #expect(try agent.ctl("submit", "local.stream", "--title", "Streaming").status == 0)
        try agent.waitForLog("[local.stream r000001] started")
        try logind.waitFor(Self.sleepLock)

        let before = logind.lineCount
        try logind.send("sleep", acknowledged: "signal PrepareForSleep true")
        try agent.waitForLog("of local.stream ended: expired(sleep)")
        try logind.waitFor(Self.sleepRelease, after: before, timeout: 10)
        #expect(!agent.logLines.contains { $0.contains("local.stream: paused") })
        let history = try json(try agent.ctl("history", "local.stream", "--json").stdout) as? [[String: Any]] ?? []
        #expect(history.first?["stopReason"] as? String == "expired(sleep)")
    }

    /// `agentctl convert` runs a job as the original ran: a suspend froze a timer's service with
    /// the machine and it went on after the resume. The converted job's run is frozen over the
    /// sleep too, and carries on, where a processing job of agentd's own is expired (above).
    @Test func aConvertedTimersRunIsFrozenOverASuspendAndCarriesOnAfterIt() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let logind = try Logind(bus: bus, delay: .seconds(4))
        let plugin = try sandbox.script("upgrade", "i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.2; done\n")
        try "[Timer]\nOnCalendar=*-*-* 6:00\n".write(toFile: sandbox.root + "/upgrade.timer", atomically: false, encoding: .utf8)
        try "[Service]\nType=oneshot\nExecStart=\(plugin)\n"
            .write(toFile: sandbox.root + "/upgrade.service", atomically: false, encoding: .utf8)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory,
                                                           sandbox.root + "/upgrade.timer"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let agent = try Self.agent(sandbox, bus: bus, jobs: [:])
        #expect(try agent.ctl("run", "local.upgrade").status == 0)
        try agent.waitForLog("[local.upgrade r000001] tick 1")
        try logind.waitFor(Self.sleepLock)

        let before = logind.lineCount
        try logind.send("sleep", acknowledged: "signal PrepareForSleep true")
        try agent.waitForLog("run r000001 of local.upgrade: paused (machine about to sleep)")
        try logind.waitFor(Self.sleepRelease, after: before, timeout: 10)
        try logind.send("wake", acknowledged: "signal PrepareForSleep false")
        try agent.waitForLog("run r000001 of local.upgrade: resumed after")
        try agent.waitForLog("[local.upgrade r000001] tick", after: agent.logLines.count)
        #expect(!agent.logLines.contains { $0.contains("of local.upgrade ended") })
        #expect(try agent.ctl("cancel", "local.upgrade").status == 0)
        try agent.waitForLog("of local.upgrade ended: cancelled")
    }

    @Test func aContinuedRunHoldsAnIdleBlockNamedByItsTitleUntilItEnds() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let logind = try Logind(bus: bus, delay: .seconds(5))
        let plugin = try sandbox.script("export", "echo PROGRESS=1/10; exec sleep 600\n")
        let agent = try Self.agent(sandbox, bus: bus, jobs: [
            "export": "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(plugin)\nProgressTimeout=10min\n",
            "quiet": "[Job]\nIdentifier=local.quiet\nKind=continued\nExec=\(plugin)\nProgressTimeout=10min\nInhibitIdle=no\n",
        ])
        #expect(try agent.ctl("submit", "local.export", "--title", "Exporting Photos").status == 0)
        try logind.waitFor("inhibit what=idle who=agentd mode=block why=Exporting Photos")
        #expect(try agent.ctl("submit", "local.quiet", "--title", "Quiet").status == 0)
        try agent.waitForLog("run r000002 of local.quiet started")
        // InhibitIdle=no: the quiet run takes none. "end" comes after every listed inhibitor.
        let listed = logind.lineCount
        try logind.send("list", acknowledged: "end")
        try logind.waitFor("inhibitor what=idle who=agentd mode=block why=Exporting Photos", after: listed, timeout: 0)
        #expect(throws: (any Error).self) { try logind.waitFor("inhibitor what=idle who=agentd mode=block why=Quiet", after: listed, timeout: 0) }
        let ending = logind.lineCount
        #expect(try agent.ctl("cancel", "local.export").status == 0)
        try logind.waitFor("released what=idle who=agentd mode=block why=Exporting Photos", after: ending)
        #expect(!(try agent.ctl("status", "--json").stdout.contains("idle block")))
    }

    @Test func requiresIdleWaitsUntilEverySessionIsIdleOrLockedForIdleForAndStopsWhenTheUserReturns() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let logind = try Logind(bus: bus, delay: .seconds(5))
        try logind.send("session 1 1000 seat0", acknowledged: "session 1")
        try logind.send("session 2 1001 seat0", acknowledged: "session 2")
        let plugin = try sandbox.script("index", Self.stubborn)
        let agent = try Self.agent(sandbox, bus: bus, jobs: [
            "index": "[Job]\nIdentifier=local.index\nKind=processing\nExec=\(plugin)\nRequiresIdle=yes\nIdleFor=15min\nGracePeriod=1s\n",
        ])
        try agent.waitForLog("user active")
        #expect(try agent.ctl("trigger", "local.index").status == 0)
        try agent.waitForLog("local.index: due, deferred: user active (idle 0 min of 15)")
        var inputs = (try json(try agent.ctl("status", "--json").stdout) as? [String: Any])?["inputs"] as? [String: Any]
        #expect(inputs?["presence"] as? String == "active")
        #expect(inputs?["idleSource"] as? String == "logind sessions and PSI")

        // One session idle for 20 minutes, the other for 3: away since the later one.
        let now = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        try logind.send("idle 1 1 \(now - 20 * 60_000_000)", acknowledged: "idle 1 1")
        try logind.send("idle 2 1 \(now - 3 * 60_000_000)", acknowledged: "idle 2 1")
        try agent.waitForLog("user away since")
        let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        #expect(pending.first?["waitingFor"] as? String == "user active (idle 3 min of 15)")
        #expect(try agent.ctl("explain", "local.index").stdout.contains("waiting: user active (idle 3 min of 15)"))

        // Long enough: it starts at once.
        try logind.send("idle 2 1 \(now - 16 * 60_000_000)", acknowledged: "idle 2 1")
        try agent.waitForLog("[local.index r000001] started")
        // The user comes back (unlocks, moves the mouse): the run is expired.
        try logind.send("idle 1 0", acknowledged: "idle 1 0")
        try agent.waitForLog("of local.index ended: expired(pressure)")
        inputs = (try json(try agent.ctl("status", "--json").stdout) as? [String: Any])?["inputs"] as? [String: Any]
        #expect(inputs?["presence"] as? String == "active")
    }

    /// Work due when the agent starts (here a new Interval= job; at a login, queued
    /// submissions) waits for logind's answer rather than starting on an unknown presence and
    /// being expired a moment later.
    @Test func requiresIdleWorkDueAtStartWaitsForLogindsAnswer() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let logind = try Logind(bus: bus, delay: .seconds(5))
        try logind.send("session 1 1000 seat0", acknowledged: "session 1")
        let plugin = try sandbox.script("index", Self.stubborn)
        let agent = try Self.agent(sandbox, bus: bus, jobs: [
            "index": "[Job]\nIdentifier=local.index\nKind=processing\nExec=\(plugin)\nInterval=1d\nRequiresIdle=yes\nIdleFor=1min\n",
        ])
        try agent.waitForLog("local.index: due, deferred: ")
        // logind has answered (the inputs line may name other changes first: `inputs: metered
        // no (…), user active`).
        try agent.waitForLog("user active")
        #expect(!agent.logLines.contains { $0.contains("of local.index started") }, "\(agent.logLines)")
        let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        #expect(pending.first?["waitingFor"] as? String == "user active (idle 0 min of 1)", "\(pending)")
    }

    @Test func withoutASeatRequiresIdleIsPSIAloneAndStatusSaysSo() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let logind = try Logind(bus: bus, delay: .seconds(5))
        _ = logind  // on the bus, with no session: a server
        let plugin = try sandbox.script("index", "echo done\n")
        let agent = try Self.agent(sandbox, bus: bus, jobs: [
            "index": "[Job]\nIdentifier=local.index\nKind=processing\nExec=\(plugin)\nRequiresIdle=yes\n",
        ])
        #expect(try agent.ctl("trigger", "local.index").status == 0)
        try agent.waitForLog("of local.index ended: success")
        let inputs = (try json(try agent.ctl("status", "--json").stdout) as? [String: Any])?["inputs"] as? [String: Any]
        #expect(inputs?["presence"] as? String == "unknown")
        #expect(inputs?["idleSource"] as? String == "PSI alone (no session with a seat: a server)")
    }

    /// power-profiles-daemon is read from `--system-bus` too (SystemBusTests: through the one
    /// connection every bus input shares).
    @Test func powerProfilesIsReadFromTheSystemBusAddressGiven() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateBus(directory: sandbox.root)
        let profiles = try LineProcess(Binaries.directory + "/power-profiles-stand-in",
                                       ["--profile", "power-saver", bus.address], withStdin: true)
        _ = try profiles.waitForLine { $0 == "ready" }
        let agent = try Self.agent(sandbox, bus: bus, jobs: [:])
        try agent.waitForLog("low-power mode on")
        let inputs = (try json(try agent.ctl("status", "--json").stdout) as? [String: Any])?["inputs"] as? [String: Any]
        #expect(inputs?["lowPowerSource"] as? String == "auto (power-profiles-daemon)")
    }
}
