// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Foundation
import Glibc
import Testing
@testable import AgentSystem

/// A runs' parent below the test's own cgroup. Tests that need one are enabled only where
/// ``available`` holds, so where it does not they show as skipped, with the reason.
enum TestRunsParent {
    /// Root, and a cgroup v2 tree whose directory of this process can take children.
    static let available: Bool = {
        guard getuid() == 0, let hierarchy = CgroupHierarchy.detect() else { return false }
        return access(hierarchy.ownDirectory, W_OK) == 0
    }()
    static let reason: Comment = "needs root and a writable cgroup v2 tree"

    static func make(_ label: String) throws -> String {
        let hierarchy = try #require(CgroupHierarchy.detect())
        let parent = hierarchy.ownDirectory + "/agentd-runs.test-\(label)-\(getpid())"
        #expect(mkdir(parent, 0o755) == 0 || errno == EEXIST, "mkdir \(parent): \(String(cString: strerror(errno)))")
        return parent
    }
}

/// Real kernel: a run's cgroup as the loop reads it.
@Suite(.serialized) struct RunCgroupTests {

    private static func sleeper(into cgroup: RunCgroup) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["30"]
        try process.run()
        #expect(writeControlFile(cgroup.path + "/cgroup.procs", String(process.processIdentifier)) == 0)
        return process
    }

    /// The listing reuses one descriptor (SIGTERM, SIGCONT and SIGKILL each list an expiring
    /// run): each listing still says who is in the cgroup now.
    @Test(.enabled(if: TestRunsParent.available, TestRunsParent.reason))
    func everyListingOfARunsCgroupSaysWhoIsInItNow() throws {
        let parent = try TestRunsParent.make("members")
        defer { rmdir(parent) }
        let cgroup = try RunCgroup.create(parent: parent, name: "run-r000001", controllers: [])
        #expect(cgroup.processes.isEmpty)
        let first = try Self.sleeper(into: cgroup)
        #expect(cgroup.processes == [first.processIdentifier])
        let second = try Self.sleeper(into: cgroup)
        #expect(Set(cgroup.processes) == [first.processIdentifier, second.processIdentifier])
        // SIGKILL: the test process may have SIGTERM blocked, and a child inherits the mask.
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(cgroup.processes == [second.processIdentifier])
        #expect(cgroup.signalAll(SIGKILL) == [second.processIdentifier])
        second.waitUntilExit()
        #expect(cgroup.processes.isEmpty)
        #expect(cgroup.remove())
    }

    /// `/bin/sh -c script` spawned as a run's plugin into `cgroup`.
    private static func spawnShell(_ script: String, into cgroup: RunCgroup,
                                   separatingMemory: Bool = false) throws -> ShellChild.Outcome {
        try ShellChild.run(script) { request in
            request.cgroup = cgroup
            request.separatesMemory = separatingMemory
        }
    }

    /// The plugin is cloned into its run's cgroup (CLONE_INTO_CGROUP), sharing the agent's
    /// memory or (a run with a memory limit) not: its first instruction already runs there.
    @Test(.enabled(if: TestRunsParent.available, TestRunsParent.reason), arguments: [false, true])
    func aPluginIsBornInItsRunsCgroup(separatingMemory: Bool) throws {
        let parent = try TestRunsParent.make("born-\(separatingMemory)")
        defer { rmdir(parent) }
        let cgroup = try RunCgroup.create(parent: parent, name: "run-r000002", controllers: [])
        let outcome = try Self.spawnShell("grep '^0::' /proc/self/cgroup", into: cgroup, separatingMemory: separatingMemory)
        #expect(outcome.failure == nil)
        #expect(outcome.output.hasPrefix("0::/"), "\(outcome.output)")
        #expect(outcome.output.hasSuffix("/agentd-runs.test-born-\(separatingMemory)-\(getpid())/run-r000002\n"), "\(outcome.output)")
        #expect(cgroup.remove())
    }

    /// A cgroup that is gone by the spawn: the kernel refuses to clone into it, and the child's
    /// own move (the path kernels before 5.7 take) names the step that failed, as it always did.
    @Test(.enabled(if: TestRunsParent.available, TestRunsParent.reason))
    func aPluginWhoseCgroupIsGoneFailsAtTheCgroupStep() throws {
        let parent = try TestRunsParent.make("gone")
        defer { rmdir(parent) }
        let cgroup = try RunCgroup.create(parent: parent, name: "run-r000003", controllers: [])
        #expect(rmdir(cgroup.path) == 0)
        let outcome = try Self.spawnShell("echo ran", into: cgroup)
        #expect(outcome.output == "")
        #expect(outcome.failure?.step == "cgroup", "\(String(describing: outcome.failure))")
    }
}
