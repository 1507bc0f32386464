// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import AgentTestSupport
import Foundation
import Testing

/// After the agent dies with runs live (kill -9, a power cut), the next agent records those runs
/// `agent-restart`, keeps their titles, and kills what they left — never a stranger that now has
/// their process group number, and nothing at all for a run of an earlier boot (DESIGN §10).
@Suite(.serialized) struct RecoveryTests {
    /// A run whose plugin leaves a child behind, live in an agent that is then SIGKILLed.
    private struct DeadAgent {
        let sandbox: Sandbox
        /// The run's processes (the plugin and its child), alive after the agent died.
        let leftovers: [Int32]
        /// What state.db recorded for r000001.
        let cgroup: String?

        var database: String { sandbox.stateDirectory + "/state.db" }

        /// Runs SQL on the dead agent's state.db (the sqlite3 program, as an admin would).
        func sql(_ statement: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let result = try runCommand("/usr/bin/sqlite3", [database, statement])
            #expect(result.status == 0, "sqlite3: \(result.stderr)", sourceLocation: sourceLocation)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Moves the leftovers out of the dead agent's cgroup v1 groups (per-run limits on a
        /// hybrid host): a restarted agent kills whatever is in those, as no boot outlives a
        /// cgroup. A test of what the recorded process group or boot id decides must not be
        /// decided by them.
        func leaveCgroupV1Groups() {
            for pid in leftovers {
                let lines = ((try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? "")
                    .split(separator: "\n")
                for line in lines where !line.hasPrefix("0::") && line.contains("/agentd-runs.") {
                    let fields = line.split(separator: ":", maxSplits: 2)
                    guard fields.count == 3 else { continue }
                    let procs = "/sys/fs/cgroup/\(fields[1])/cgroup.procs"
                    try? "\(pid)\n".write(toFile: procs, atomically: false, encoding: .utf8)
                }
            }
        }

        /// Kills what the test left and removes the dead agent's cgroup directories.
        func cleanUp() {
            for pid in ProcessInspection.processes(of: "local.leftover") { kill(pid, SIGKILL) }
            _ = ProcessInspection.remaining(of: "local.leftover")
            if let cgroup {
                rmdir(cgroup)
                rmdir((cgroup as NSString).deletingLastPathComponent)
            }
        }
    }

    private static let sqlite = "/usr/bin/sqlite3"

    /// A second agent on the same socket with a state directory of its own (half of the advice
    /// its refusal gives) used to take the first agent's live runs for its own leftovers and
    /// SIGKILL them, then refuse (helper-43). It refuses before touching anything (DESIGN §10).
    @Test func aSecondAgentOnTheSameSocketRefusesWithoutKillingTheFirstOnesRuns() throws {
        let sandbox = try Sandbox()
        let sleeper = try sandbox.script("sleeper", "echo PROGRESS=1/2\nexec sleep 60\n")
        try sandbox.write("jobs.d/sleeper.job", "[Job]\nIdentifier=local.sleeper\nExec=\(sleeper)\n")
        let first = try AgentProcess(sandbox: sandbox)
        #expect(try first.ctl("simulate", "launch", "local.sleeper").status == 0)
        try first.waitForLog("run r000001 of local.sleeper started")
        let second = try runCommand(Binaries.agentd, ["--config-dir", sandbox.configDirectory,
                                                      "--state-dir", sandbox.root + "/other-state",
                                                      "--socket", sandbox.socketPath])
        #expect(second.status != 0)
        #expect(second.stderr.contains("another server is already listening on \(sandbox.socketPath)"), "\(second.stderr)")
        #expect(!second.stderr.contains("killed"), "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/other-state/state.db"))
        let status = try first.ctl("status").stdout
        #expect(status.contains("local.sleeper") && status.contains("r000001"), "\(status)")
        #expect(!first.logLines.contains { $0.contains("of local.sleeper ended") })
        #expect(try first.ctl("cancel", "r000001").status == 0)
        try first.waitForLog("run r000001 of local.sleeper ended: cancelled")
    }

    /// Starts an agent, starts r000001 (a plugin that sets a title and leaves a `sleep` child),
    /// and SIGKILLs the agent while the run is live. `submitTitle`: start it as a continued
    /// submission with that title instead.
    private func agentKilledWithALiveRun(submitTitle: String? = nil, wrapper: [String] = []) throws -> DeadAgent {
        let sandbox = try Sandbox()
        let kind = submitTitle == nil ? "processing" : "continued"
        let titleLine = submitTitle == nil ? "echo TITLE=Exporting Photos\n" : "echo PROGRESS=1/100\n"
        let plugin = try sandbox.script("leftover", titleLine + "sleep 300 &\necho ready\nwait\n")
        try sandbox.write("jobs.d/leftover.job", "[Job]\nIdentifier=local.leftover\nKind=\(kind)\nExec=\(plugin)\n"
            + "MaxRuntime=10min\nProgressTimeout=10min\nGracePeriod=1s\n")
        let agent = try AgentProcess(sandbox: sandbox, wrapper: wrapper)
        let started = if let submitTitle {
            try agent.ctl("submit", "local.leftover", "--title", submitTitle)
        } else {
            try agent.ctl("simulate", "launch", "local.leftover")
        }
        #expect(started.status == 0, "\(started.stderr)")
        try agent.waitForLog("[local.leftover r000001] ready")
        // The run's title reaches the state file through the writer's thread, a moment after the
        // line that set it: killed before, the agent could not have kept it. Each write of the
        // state directory is the event looked at.
        let title = Data((submitTitle ?? "Exporting Photos").utf8)
        let writes = try #require(InotifyWaiter(path: sandbox.stateDirectory, events: UInt32(IN_MODIFY | IN_CLOSE_WRITE)))
        let stored = writes.waitUntil(seconds: 20) {
            ["state.db-wal", "state.db"].contains { name in
                FileManager.default.contents(atPath: sandbox.stateDirectory + "/" + name)?.range(of: title) != nil
            }
        }
        #expect(stored, "the run's title was not written to the state file within 20 s")
        kill(agent.process.processIdentifier, SIGKILL)
        agent.process.waitUntilExit()
        let leftovers = ProcessInspection.processes(of: "local.leftover")
        #expect(leftovers.count == 2, "the plugin and its child outlive the agent: \(leftovers)")
        let cgroup = try DeadAgent(sandbox: sandbox, leftovers: leftovers, cgroup: nil)
            .sql("SELECT cgroup FROM runs WHERE run_id = 'r000001'")
        return DeadAgent(sandbox: sandbox, leftovers: leftovers, cgroup: cgroup.isEmpty ? nil : cgroup)
    }

    /// A process group of the test's own, in a session of its own: `setsid sh` prints its pid
    /// (= its process group) and becomes `sleep`.
    private func strangerProcessGroup() throws -> (process: Process, group: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["sh", "-c", "echo $$; exec sleep 300"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = ""
        while !line.hasSuffix("\n") {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line += String(decoding: byte, as: UTF8.self)
        }
        let group = Int32(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(group > 1, "the stranger's process group: \(line)")
        return (process, group)
    }

    private func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 && ProcessInspection.state(of: pid) != "Z"
    }

    private func record(_ agent: AgentProcess) throws -> [String: Any] {
        let history = try agent.ctl("history", "local.leftover", "--json")
        return (try json(history.stdout) as? [[String: Any]])?.first ?? [:]
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite), "needs the sqlite3 program to edit state.db"))
    func aRestartNeverKillsAStrangerThatNowHasTheRecordedProcessGroup() throws {
        let dead = try agentKilledWithALiveRun()
        defer { dead.cleanUp() }
        let stranger = try strangerProcessGroup()
        defer { kill(-stranger.group, SIGKILL); stranger.process.waitUntilExit() }
        _ = try dead.sql("UPDATE runs SET process_group = \(stranger.group) WHERE run_id = 'r000001'")

        let agent = try AgentProcess(sandbox: dead.sandbox)
        let line = try agent.waitForLog("run r000001 of local.leftover was live when the agent stopped")
        #expect(line.contains("recorded agent-restart"))
        #expect(line.contains("0 verified process(es) of process group \(stranger.group) killed, 1 not the run's left alone"), "\(line)")
        #expect(isAlive(stranger.group), "the stranger was killed")
        if let cgroup = dead.cgroup {
            // The real leftovers were in the run's cgroup: killed through it, and it is removed.
            #expect(line.contains("cgroup \(cgroup) killed"), "\(line)")
            #expect(ProcessInspection.remaining(of: "local.leftover").isEmpty, "the run's leftovers survived")
            try agent.waitForLog("leftover cgroup \(cgroup) is empty and removed")
            #expect(!FileManager.default.fileExists(atPath: cgroup))
        }
        let run = try record(agent)
        #expect(run["stopReason"] as? String == "agent-restart")
        #expect(run["title"] as? String == "Exporting Photos")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite), "needs the sqlite3 program to edit state.db"))
    func aLeftoverTrackedByProcessGroupOnlyIsKilledWhenItsEnvironmentNamesTheRun() throws {
        let dead = try agentKilledWithALiveRun()
        defer { dead.cleanUp() }
        // As a run of an agent without cgroups is recorded: its process group only.
        _ = try dead.sql("UPDATE runs SET cgroup = NULL WHERE run_id = 'r000001'")
        dead.leaveCgroupV1Groups()
        let group = try dead.sql("SELECT process_group FROM runs WHERE run_id = 'r000001'")

        let agent = try AgentProcess(sandbox: dead.sandbox)
        let line = try agent.waitForLog("run r000001 of local.leftover was live when the agent stopped")
        #expect(line.contains("2 verified process(es) of process group \(group) killed"), "\(line)")
        #expect(ProcessInspection.remaining(of: "local.leftover").isEmpty, "the run's leftovers survived")
        #expect(try record(agent)["stopReason"] as? String == "agent-restart")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite), "needs the sqlite3 program to edit state.db"))
    func aRunOfAnEarlierBootKillsNothingAndIsRecordedAgentRestartWithItsTitle() throws {
        let dead = try agentKilledWithALiveRun(submitTitle: "Exporting Holidays")
        defer { dead.cleanUp() }
        let recordedBoot = try dead.sql("SELECT boot_id FROM runs WHERE run_id = 'r000001'")
        let thisBoot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        #expect(recordedBoot == thisBoot.trimmingCharacters(in: .whitespacesAndNewlines), "the run records this boot")
        _ = try dead.sql("UPDATE runs SET boot_id = 'an-earlier-boot' WHERE run_id = 'r000001'")
        dead.leaveCgroupV1Groups()

        let agent = try AgentProcess(sandbox: dead.sandbox)
        let line = try agent.waitForLog("run r000001 of local.leftover was live when the agent stopped")
        #expect(line.contains("nothing killed: it ran in an earlier boot"), "\(line)")
        // The numbers recorded in an earlier boot belong to somebody else now: all left alone.
        #expect(dead.leftovers.allSatisfy(isAlive), "a process was killed")
        let run = try record(agent)
        #expect(run["stopReason"] as? String == "agent-restart")
        #expect(run["title"] as? String == "Exporting Holidays")
    }

    /// A run the dead agent started but never recorded (SIGKILLed between the spawn and the
    /// commit of its start record; here the record is deleted) still has its processes killed by
    /// the next agent, through the runs cgroup the dead agent noted in the state directory, and
    /// its run id is not given to a new run.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite), "needs the sqlite3 program to edit state.db"))
    func aRunTheDeadAgentNeverRecordedIsKilledThroughTheCgroupItNoted() throws {
        let dead = try agentKilledWithALiveRun()
        defer { dead.cleanUp() }
        let cgroup = try #require(dead.cgroup, "the run had no cgroup: this test needs a writable cgroup v2 hierarchy")
        let noted = try String(contentsOfFile: dead.sandbox.stateDirectory + "/runs-cgroup", encoding: .utf8)
        #expect(noted == (cgroup as NSString).deletingLastPathComponent + "\n")
        _ = try dead.sql("DELETE FROM runs")

        let agent = try AgentProcess(sandbox: dead.sandbox)
        defer { agent.stop() }
        let line = try agent.waitForLog("run r000001 still had processes")
        #expect(line.contains("cgroup \(cgroup) killed"), "\(line)")
        #expect(ProcessInspection.remaining(of: "local.leftover").isEmpty, "the unrecorded run's processes survived")
        try agent.waitForLog("leftover cgroup \(cgroup) is empty and removed")
        let next = try agent.ctl("simulate", "launch", "local.leftover")
        #expect(next.stdout.contains("r000002"), "\(next.stdout)\(next.stderr)")
        let history = try agent.ctl("history", "--json")
        #expect(!history.stdout.contains("r000001"), "\(history.stdout)")
    }

    /// agentd in a mount namespace of its own without the cgroup2 mount: its runs get no cgroup,
    /// as on a machine with cgroup v1 only or in a container that hides cgroup v2.
    private static let withoutCgroupV2: [String] = {
        let mount = CgroupHierarchy.detect()?.mountPoint ?? "/sys/fs/cgroup"
        return ["/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                "umount -l \"$0\" && exec \"$@\"", mount]
    }()

    /// Where runs have no cgroup, a run the dead agent started but never recorded is still found:
    /// its processes carry the agent's socket and a run id above every recorded one in their
    /// environment. A stranger with a run id of its own but another agent's socket is left alone.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite) && getuid() == 0
                   && CgroupHierarchy.detect() != nil,
                   "needs the sqlite3 program, root (a mount namespace) and a cgroup v2 mount to hide"))
    func aRunTheDeadAgentNeverRecordedIsFoundByItsEnvironmentWhereRunsHaveNoCgroup() throws {
        let dead = try agentKilledWithALiveRun(wrapper: Self.withoutCgroupV2)
        defer { dead.cleanUp() }
        #expect(dead.cgroup == nil, "the run had a cgroup (\(dead.cgroup ?? "")): cgroup v2 was not hidden")
        dead.leaveCgroupV1Groups()
        _ = try dead.sql("DELETE FROM runs")
        let stranger = Process()
        stranger.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        stranger.arguments = ["-i", "AGENTD_RUN_ID=r000009", "AGENTD_SOCKET=/run/another-agent.sock", "sleep", "300"]
        try stranger.run()
        defer { kill(stranger.processIdentifier, SIGKILL); stranger.waitUntilExit() }

        let agent = try AgentProcess(sandbox: dead.sandbox, wrapper: Self.withoutCgroupV2)
        defer { agent.stop() }
        let line = try agent.waitForLog("run r000001 still had processes")
        #expect(line.contains("2 process(es) killed (found by AGENTD_RUN_ID=r000001"), "\(line)")
        #expect(ProcessInspection.remaining(of: "local.leftover").isEmpty, "the unrecorded run's processes survived")
        #expect(stranger.isRunning, "a process of another agent's run was killed")
        let next = try agent.ctl("simulate", "launch", "local.leftover")
        #expect(next.stdout.contains("r000002"), "\(next.stdout)\(next.stderr)")
    }
}
