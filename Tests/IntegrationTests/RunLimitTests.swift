// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Foundation
import Testing

/// Per-run limits on the real kernel (DESIGN §3 TasksMax=, MemoryMax=; §7 expired(limit)):
/// a fork bomb and a runaway allocation stay inside their run, and the run says which limit
/// stopped it.
@Suite(.serialized) struct RunLimitTests {
    /// Whether this machine can give a root agent's runs `controller` (`pids`, `memory`): a cgroup
    /// v1 hierarchy with it (a hybrid host), or the unified tree with it delegated to the test's
    /// cgroup and usable for children (enabled there already, or the root cgroup, which may).
    static func controllerAvailable(_ controller: String) -> Bool {
        guard getuid() == 0 else { return false }
        if CgroupV1Controller.detect(controller) != nil { return true }
        guard let unified = CgroupHierarchy.detect() else { return false }
        func listed(_ file: String) -> Bool {
            let text = (try? String(contentsOfFile: unified.ownDirectory + "/" + file, encoding: .utf8)) ?? ""
            return text.split(whereSeparator: \.isWhitespace).contains { $0 == controller }
        }
        return listed("cgroup.controllers") && (unified.ownPath == "/" || listed("cgroup.subtree_control"))
    }

    static let python = "/usr/bin/python3"
    static let canLimitTasks = controllerAvailable("pids") && FileManager.default.isExecutableFile(atPath: python)
    static let canLimitMemory = controllerAvailable("memory") && FileManager.default.isExecutableFile(atPath: python)

    /// Starts an agent with `local.NAME` running `script`, launches it, waits for its end and
    /// returns its history record; nothing of the run may be left behind.
    private func run(_ name: String, script: String, keys: String, sandbox: Sandbox,
                     after: ((AgentProcess) throws -> Void)? = nil) throws -> [String: Any] {
        let plugin = sandbox.root + "/\(name)"
        try script.write(toFile: plugin, atomically: false, encoding: .utf8)
        chmod(plugin, 0o755)
        try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nExec=\(plugin)\n\(keys)")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.\(name)").status == 0)
        try agent.waitForLog("of local.\(name) ended:", timeout: 60)
        let history = try json(try agent.ctl("history", "local.\(name)", "--json").stdout) as? [[String: Any]]
        try after?(agent)
        #expect(ProcessInspection.remaining(of: "local.\(name)").isEmpty, "leftover processes")
        return history?.first ?? [:]
    }

    @Test(.enabled(if: canLimitTasks, "needs root, /usr/bin/python3 and a pids controller (cgroup v1, or delegated v2)"))
    func aForkBombIsHeldAtTasksMaxAndTheRunEndsExpiredLimit() throws {
        let sandbox = try Sandbox()
        // Forks sleeping children until the kernel refuses (EAGAIN), then reports how many.
        let script = """
            #!\(Self.python)
            import os, signal, sys
            n = 0
            try:
                for _ in range(100):
                    if os.fork() == 0:
                        signal.pause()  # hold a task until the run's teardown
                        os._exit(0)
                    n += 1
            except OSError as error:
                print("fork refused:", error.strerror, flush=True)
            print("forked", n, flush=True)

            """
        let record = try run("forker", script: script, keys: "TasksMax=20\n", sandbox: sandbox) { agent in
            let explain = try agent.ctl("explain", "local.forker")
            #expect(explain.stdout.contains("r000001 stopped at its limit: TasksMax=20 (the kernel refused 1 fork)"), "\(explain.stdout)")
        }
        #expect(record["stopReason"] as? String == "expired(limit)")
        #expect(record["exitStatus"] as? Int == 0, "its own exit status is recorded beside")
        let tail = record["logTail"] as? [String] ?? []
        // The plugin itself is the 20th task: 19 children, then the fork fails inside it.
        #expect(tail.contains("forked 19"), "\(tail)")
        #expect(tail.contains("fork refused: Resource temporarily unavailable"), "\(tail)")
        #expect(tail.last == "agentd: limit reached: TasksMax=20 (the kernel refused 1 fork)")
    }

    @Test(.enabled(if: canLimitMemory, "needs root, /usr/bin/python3 and a memory controller (cgroup v1, or delegated v2)"))
    func aPluginAllocatingPastMemoryMaxIsOOMKilledAndEndsExpiredLimit() throws {
        let sandbox = try Sandbox()
        let script = "#!/bin/sh\n\(Self.python) -c 'b = bytearray(256 << 20)'\necho \"python exited $?\"\nexit 0\n"
        let record = try run("hog", script: script, keys: "MemoryMax=64M\n", sandbox: sandbox) { agent in
            let explain = try agent.ctl("explain", "local.hog")
            #expect(explain.stdout.contains("stopped at its limit: MemoryMax=64M (the OOM killer killed 1 process)"), "\(explain.stdout)")
        }
        #expect(record["stopReason"] as? String == "expired(limit)")
        let tail = record["logTail"] as? [String] ?? []
        #expect(tail.contains("python exited 137"), "SIGKILLed by the OOM killer: \(tail)")
        #expect(tail.last == "agentd: limit reached: MemoryMax=64M (the OOM killer killed 1 process)")
    }

    /// `MemoryMax=512` (meant: 512M) and `MemoryMax=1` once had the kernel OOM-kill agentd itself:
    /// the child joined the run's memory group while it still shared the agent's memory, and the
    /// OOM killer kills every process sharing its victim's. The run ends at its limit; the agent
    /// answers on, the same process.
    @Test(.enabled(if: canLimitMemory, "needs root and a memory controller (cgroup v1, or delegated v2)"),
          arguments: ["512", "1"])
    func aMemoryMaxTooSmallToStartEndsTheRunAndNeverTheAgent(limit: String) throws {
        let sandbox = try Sandbox()
        let script = "#!/bin/sh\necho started\nexit 0\n"
        var agentPID: Int32 = 0
        let record = try run("tiny", script: script, keys: "MemoryMax=\(limit)\n", sandbox: sandbox) { agent in
            agentPID = agent.process.processIdentifier
            #expect(agent.process.isRunning, "the agent outlives its run's limit")
            let status = try agent.ctl("status")
            #expect(status.status == 0, "\(status.stderr)")
            let explain = try agent.ctl("explain", "local.tiny")
            #expect(explain.stdout.contains("stopped at its limit: MemoryMax=\(limit)"), "\(explain.stdout)")
        }
        #expect(agentPID != 0)
        #expect(record["stopReason"] as? String == "expired(limit)", "\(record)")
        let tail = record["logTail"] as? [String] ?? []
        #expect(!tail.contains("started"), "nothing runs in \(limit) bytes: \(tail)")
        #expect(tail.last?.hasPrefix("agentd: limit reached: MemoryMax=\(limit) (the OOM killer killed") == true, "\(tail)")
    }

    @Test func checkWarnsOfAMemoryLimitBelowWhatAnyProgramNeeds() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/small.job", "[Job]\nIdentifier=local.small\nExec=\(sandbox.pluginPath)\nMemoryMax=512\n")
        let result = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        let output = result.stdout + result.stderr
        #expect(result.status == 0, "a warning, not an error: \(output)")
        #expect(output.contains("small.job:4: warning: MemoryMax: \"512\" is 512 bytes, less than any program needs to start (4M)"), "\(output)")
        #expect(output.contains("did you mean 512M?"), "\(output)")
    }

    @Test(.enabled(if: canLimitTasks, "needs root and a pids controller (cgroup v1, or delegated v2)"))
    func aRunWithoutTasksMaxGetsTheDefaultOf512AndEndsAsItExits() throws {
        let sandbox = try Sandbox()
        let marker = sandbox.stateDirectory + "/jobs/local.plain/pids.max"
        // Reads its own pids.max from whichever hierarchy holds its pids controller (into its
        // STATE_DIRECTORY: it runs as DefaultUser, nobody).
        let script = """
            #!/bin/sh
            line=$(grep -E '^[0-9]+:([^:]*,)?pids(,[^:]*)?:' /proc/self/cgroup)
            if [ -n "$line" ]; then
                cat "\(CgroupV1Controller.detect("pids")?.mountPoint ?? "/nonexistent")${line##*:}/pids.max" > "$STATE_DIRECTORY/pids.max"
            else
                cat "\(CgroupHierarchy.detect()?.mountPoint ?? "/nonexistent")$(sed -n 's/^0:://p' /proc/self/cgroup)/pids.max" > "$STATE_DIRECTORY/pids.max"
            fi
            exit 3

            """
        let record = try run("plain", script: script, keys: "", sandbox: sandbox)
        #expect(try String(contentsOfFile: marker, encoding: .utf8) == "512\n")
        #expect(record["stopReason"] as? String == "failure(exit 3)", "no limit reached: the run's own result stands")
    }

    @Test func statusSaysWhichLimitsAreEnforcedAndWhyNot() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let limits = status?["runLimits"] as? [[String: Any]] ?? []
        #expect(limits.compactMap { $0["key"] as? String } == ["TasksMax", "MemoryMax", "MemoryHigh"])
        for limit in limits {
            if limit["enforced"] as? Bool == true {
                #expect((limit["by"] as? String)?.hasPrefix("cgroup v") == true, "\(limit)")
            } else {
                #expect((limit["reason"] as? String)?.isEmpty == false, "a limit not enforced says why: \(limit)")
            }
        }
        let tasks = limits.first { $0["key"] as? String == "TasksMax" }
        #expect(tasks?["enforced"] as? Bool == Self.controllerAvailable("pids"))
        let memory = limits.first { $0["key"] as? String == "MemoryMax" }
        #expect(memory?["enforced"] as? Bool == Self.controllerAvailable("memory"))
        let human = try agent.ctl("status").stdout
        #expect(human.contains("limits:   TasksMax") == (tasks?["enforced"] as? Bool == true), "\(human)")
        try agent.waitForLog("per-run limits: ")
    }

    @Test func aBadLimitValueIsAFileAndLineErrorNamingWhatIsValid() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/bad.job", "[Job]\nIdentifier=local.bad\nExec=\(sandbox.pluginPath)\nTasksMax=lots\nMemoryMax=64MB\n")
        let result = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(result.status == 1)
        let output = result.stdout + result.stderr
        #expect(output.contains("jobs.d/bad.job:4: TasksMax: \"lots\" is not a number of tasks (a whole number from 1 to 4194304, such as 512, a percentage of the machine's task limit such as 10%, or infinity)"), "\(output)")
        #expect(output.contains("jobs.d/bad.job:5: MemoryMax: \"64MB\" is not a size (a number of bytes, or a number with K, M, G or T (1024-based) such as 512M or 2G, a percentage of physical memory such as 50%; or infinity)"), "\(output)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
    func theAgentRaisesItsOpenFileLimitToTheHardLimit() throws {
        let sandbox = try Sandbox()
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let hard = limit.rlim_max
        try #require(hard > 1024, "the test process's hard limit is \(hard)")
        // systemd's default for a service: a soft limit of 1024 below a higher hard limit.
        let agent = try AgentProcess(sandbox: sandbox, wrapper: ["/usr/bin/prlimit", "--nofile=1024:\(hard)", "--"])
        let limits = try String(contentsOfFile: "/proc/\(agent.process.processIdentifier)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
        let numbers = line.split(separator: " ").compactMap { UInt64($0) }
        #expect(numbers == [UInt64(hard), UInt64(hard)], "\(line)")
    }
}

/// The cgroup v1 groups of an agent killed with SIGKILL: nothing records them, so the next agent
/// removes them and kills what was left in them.
@Suite(.serialized) struct DeadAgentGroupTests {
    @Test(.enabled(if: RunLimitTests.controllerAvailable("pids") && CgroupV1Controller.detect("pids") != nil,
                   "needs root and a cgroup v1 pids hierarchy (a hybrid host)"))
    func aKilledAgentsV1GroupsAreRemovedByTheNextAndTheirLeftoversKilled() throws {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("sleeper", "echo started\nexec sleep 300\n")
        try sandbox.write("jobs.d/sleeper.job", "[Job]\nIdentifier=local.sleeper\nExec=\(plugin)\nTasksMax=8\n")
        let first = try AgentProcess(sandbox: sandbox)
        #expect(try first.ctl("simulate", "launch", "local.sleeper").status == 0)
        try first.waitForLog("[local.sleeper r000001] started")
        let pids = try #require(CgroupV1Controller.detect("pids"))
        let group = pids.ownDirectory + "/agentd-runs.\(first.process.processIdentifier)"
        #expect(FileManager.default.fileExists(atPath: group + "/run-r000001"))
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()

        let second = try AgentProcess(sandbox: sandbox)
        try second.waitForLog("recorded agent-restart")
        second.stop()
        #expect(!FileManager.default.fileExists(atPath: group), "\(group) is left behind")
        #expect(ProcessInspection.remaining(of: "local.sleeper").isEmpty, "leftover processes")
    }
}
