// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Foundation
import Glibc
import Testing
@testable import AgentSystem

/// A runs' parent below the test's own cgroup, or nil where the unified tree is not writable.
enum TestRunsParent {
    static func make(_ label: String) -> String? {
        guard getuid() == 0, let hierarchy = CgroupHierarchy.detect() else { return nil }
        let parent = hierarchy.ownDirectory + "/agentd-runs.test-\(label)-\(getpid())"
        return mkdir(parent, 0o755) == 0 || errno == EEXIST ? parent : nil
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
    @Test func everyListingOfARunsCgroupSaysWhoIsInItNow() throws {
        guard let parent = TestRunsParent.make("members") else { return }
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
}
