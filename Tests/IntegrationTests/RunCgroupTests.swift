// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import AgentCore
import AgentSystem
import Foundation
import Glibc
import Testing

/// Run cgroups made and removed off the loop (RunCgroupWorker), seen from outside a real agent:
/// an ended run's cgroups go, what is left is only made ahead for runs still to come, and the
/// stop leaves nothing.
@Suite(.serialized) struct RunCgroupTests {
    @Test(.enabled(if: getuid() == 0 && CgroupHierarchy.detect().map { access($0.ownDirectory, W_OK) == 0 } == true,
                   "needs root and a writable cgroup v2 tree"))
    func aBurstOfRunsLeavesOnlyCgroupsForRunsToComeAndTheStopLeavesNone() throws {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("quick", "exit 0\n")
        let runs = 20
        for i in 1...runs {
            try sandbox.write("jobs.d/q\(i).job", "[Job]\nIdentifier=local.q\(i)\nExec=\(plugin)\nTasksMax=16\n")
        }
        let agent = try AgentProcess(sandbox: sandbox)
        let pid = agent.process.processIdentifier
        let unified = try #require(CgroupHierarchy.detect()).ownDirectory + "/agentd-runs.\(pid)"
        let pids = CgroupV1Controller.detect("pids").map { $0.ownDirectory + "/agentd-runs.\(pid)" }
        try #require(FileManager.default.fileExists(atPath: unified), "the agent made no runs' parent \(unified)")
        let unifiedChanges = try #require(InotifyWaiter.entriesComingAndGoing(unified))
        for i in 1...runs {
            #expect(try agent.ctl("simulate", "launch", "local.q\(i)").status == 0)
        }
        for i in 1...runs { try agent.waitForLog("of local.q\(i) ended: success") }
        // Ended runs' cgroups go off the loop, soon after each end.
        #expect(unifiedChanges.waitUntil(seconds: 20) { !Self.runNumbers(in: unified).contains { $0 <= runs } },
                "\(Self.runNumbers(in: unified))")
        if let pids {
            #expect(!Self.runNumbers(in: pids).contains { $0 <= runs }, "\(Self.runNumbers(in: pids))")
        }
        agent.stop()
        #expect(!FileManager.default.fileExists(atPath: unified), "\(Self.runNumbers(in: unified)) left")
        if let pids { #expect(!FileManager.default.fileExists(atPath: pids), "\(Self.runNumbers(in: pids)) left") }
    }

    /// The run numbers of the `run-rNNNNNN` directories in `parent`.
    static func runNumbers(in parent: String) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [])
            .compactMap { $0.hasPrefix("run-r") ? Int($0.dropFirst(5)) : nil }.sorted()
    }
}

/// A run's plugin starts in the run's own cgroups: the unified one, and on a hybrid host the v1
/// `pids` group too, which it joins through `tasks` (its one thread, and so the whole process).
@Suite struct RunCgroupPlacementTests {
    @Test(.enabled(if: getuid() == 0 && CgroupHierarchy.detect().map { access($0.ownDirectory, W_OK) == 0 } == true,
                   "needs root and a writable cgroup v2 tree"))
    func aPluginAndWhatItForksStartInItsRunsCgroups() throws {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("where", "cat /proc/self/cgroup > \"$STATE_DIRECTORY/cgroup.txt\"\n"
            + "sh -c 'cat /proc/self/cgroup' > \"$STATE_DIRECTORY/forked.txt\"\n")
        try sandbox.write("jobs.d/where.job", "[Job]\nIdentifier=local.where\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.where").status == 0)
        let ended = try agent.waitForLog("of local.where ended:")
        #expect(ended.contains("ended: success"), "\(ended)")
        let run = "/agentd-runs.\(agent.process.processIdentifier)/run-r"
        let mountinfo = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        for file in ["cgroup.txt", "forked.txt"] {
            let text = try String(contentsOfFile: sandbox.stateDirectory + "/jobs/local.where/" + file, encoding: .utf8)
            let lines = text.split(separator: "\n")
            let unified = try #require(lines.first { $0.hasPrefix("0::") })
            #expect(unified.contains(run), "\(file): \(lines)")
            if CgroupV1Controller.detect("pids") != nil {
                let pids = try #require(CgroupV1Controller.find("pids", mountinfo: mountinfo, cgroups: text))
                #expect(pids.ownPath.contains(run), "\(file): \(lines)")
            }
        }
    }
}
