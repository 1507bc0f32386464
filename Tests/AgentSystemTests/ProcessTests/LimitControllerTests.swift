// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Foundation
import Testing
@testable import AgentSystem

/// Finding the controllers behind per-run limits: cgroup v1 hierarchies on a hybrid host, and
/// the unified tree's delegated controllers.
@Suite struct LimitControllerTests {
    // This machine's shape: v1 pids and memory, a unified tree without them.
    static let hybridMountinfo = """
        25 30 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
        26 25 0:24 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw
        31 25 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:15 - cgroup cgroup rw,cpu,cpuacct
        33 25 0:31 / /sys/fs/cgroup/pids rw,nosuid shared:17 - cgroup cgroup rw,pids
        34 25 0:32 / /sys/fs/cgroup/memory rw,nosuid shared:18 - cgroup cgroup rw,memory
        """
    static let hybridCgroups = """
        8:pids:/system.slice/agentd.service
        4:memory:/system.slice/agentd.service
        2:cpu,cpuacct:/system.slice
        0::/system.slice/agentd.service
        """

    @Test func aHybridHostHasV1PidsAndMemoryGroupsWhereTheAgentIs() throws {
        let pids = try #require(CgroupV1Controller.find("pids", mountinfo: Self.hybridMountinfo, cgroups: Self.hybridCgroups))
        #expect(pids.ownDirectory == "/sys/fs/cgroup/pids/system.slice/agentd.service")
        let memory = try #require(CgroupV1Controller.find("memory", mountinfo: Self.hybridMountinfo, cgroups: Self.hybridCgroups))
        #expect(memory.ownDirectory == "/sys/fs/cgroup/memory/system.slice/agentd.service")
        // A controller co-mounted with another is found by its own name.
        #expect(CgroupV1Controller.find("cpuacct", mountinfo: Self.hybridMountinfo, cgroups: Self.hybridCgroups)?.mountPoint
            == "/sys/fs/cgroup/cpu,cpuacct")
    }

    @Test func aPureV2HostHasNoV1Hierarchy() {
        let mountinfo = "26 25 0:24 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
        #expect(CgroupV1Controller.find("pids", mountinfo: mountinfo, cgroups: "0::/system.slice/agentd.service\n") == nil)
    }

    /// A unified cgroup as files: the agent's own, with `controllers` delegated, and its runs' parent.
    private func fakeUnifiedTree(controllers: String) throws -> (CgroupHierarchy, String, String) {
        let root = NSTemporaryDirectory() + "agentd-cgroup-\(UUID().uuidString.prefix(8))"
        let own = root + "/system.slice/agentd.service"
        let runs = own + "/agentd-runs.1"
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        for (path, text) in [(own + "/cgroup.controllers", controllers + "\n"), (own + "/cgroup.subtree_control", ""),
                             (own + "/cgroup.procs", "\(getpid())\n"), (runs + "/cgroup.subtree_control", "")] {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
        return (CgroupHierarchy(mountPoint: root, ownPath: "/system.slice/agentd.service"), runs, root)
    }

    @Test func delegatedControllersAreEnabledForTheRunsCgroups() throws {
        let (hierarchy, runs, root) = try fakeUnifiedTree(controllers: "cpu io memory pids")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = hierarchy.enableControllers(["pids", "memory"], forRunsUnder: runs)
        #expect(result.enabled == ["pids", "memory"])
        #expect(result.problems.isEmpty)
        // The last write to the runs' parent's subtree_control enabled memory.
        #expect(try String(contentsOfFile: runs + "/cgroup.subtree_control", encoding: .utf8).hasPrefix("+memory"))
    }

    @Test func controllersNotDelegatedAreNamedWithWhatIs() throws {
        let (hierarchy, runs, root) = try fakeUnifiedTree(controllers: "hugetlb")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = hierarchy.enableControllers(["pids", "memory"], forRunsUnder: runs)
        #expect(result.enabled.isEmpty)
        #expect(result.problems["memory"] == "no memory controller delegated to \(root)/system.slice/agentd.service, which has hugetlb")
    }

    @Test func withoutAnyControllerEveryLimitSaysWhyItIsNotEnforced() throws {
        let (hierarchy, runs, root) = try fakeUnifiedTree(controllers: "")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = hierarchy.enableControllers(["pids"], forRunsUnder: runs)
        #expect(result.problems["pids"]?.hasSuffix("agentd.service, which has none") == true)
    }

    /// Real kernel: on a host with a writable cgroup v1 pids hierarchy, a run's group is made
    /// with its pids.max and removed at its end.
    @Test(.enabled(if: getuid() == 0 && CgroupV1Controller.detect("pids") != nil,
                   "needs root and a cgroup v1 pids hierarchy (a hybrid host such as this project's CI machine)"))
    func aRunGetsAV1PidsGroupWithItsLimitAndLosesItAtTheEnd() throws {
        let name = "agentd-runs.test-\(getpid())"
        let controllers = LimitControllers.setUp(unified: nil, runsParent: nil, groupName: name)
        defer { controllers.removeParents() }
        #expect(controllers.enforcement.first { $0.key == "TasksMax" }?.by == "cgroup v1 pids")
        let groups = try #require(try controllers.prepare(run: "run-r000001", limits: RunLimits(tasksMax: 20), cgroup: nil))
        let directory = try #require(CgroupV1Controller.detect("pids")).ownDirectory + "/" + name + "/run-r000001"
        #expect(try String(contentsOfFile: directory + "/pids.max", encoding: .utf8) == "20\n")
        // One group, and one descriptor for the child to join it, per v1 controller with a limit
        // to enforce: no memory group without MemoryMax=/MemoryHigh=.
        #expect(groups.joinDescriptors.count == 1)
        #expect(groups.limitCounters == LimitCounters())
        controllers.release(groups)
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    /// Real kernel: a memory group only for a run with a memory limit (making and removing one
    /// was the dearest step of every run's end on a hybrid host).
    @Test(.enabled(if: getuid() == 0 && CgroupV1Controller.detect("memory") != nil,
                   "needs root and a cgroup v1 memory hierarchy (a hybrid host such as this project's CI machine)"))
    func aV1MemoryGroupIsMadeOnlyForARunWithAMemoryLimit() throws {
        let name = "agentd-runs.test-memory-\(getpid())"
        let controllers = LimitControllers.setUp(unified: nil, runsParent: nil, groupName: name)
        defer { controllers.removeParents() }
        let memory = try #require(CgroupV1Controller.detect("memory")).ownDirectory + "/" + name
        let plain = try controllers.prepare(run: "run-r000001", limits: RunLimits(), cgroup: nil)
        #expect(!FileManager.default.fileExists(atPath: memory + "/run-r000001"))
        let limited = try #require(try controllers.prepare(run: "run-r000002", limits: RunLimits(memoryMax: ByteSize(bytes: 64 << 20)), cgroup: nil))
        #expect(try String(contentsOfFile: memory + "/run-r000002/memory.limit_in_bytes", encoding: .utf8) == "\(64 << 20)\n")
        #expect(limited.joinDescriptors.count == (CgroupV1Controller.detect("pids") != nil ? 2 : 1))
        if let plain { controllers.release(plain) }
        controllers.release(limited)
        #expect(!FileManager.default.fileExists(atPath: memory + "/run-r000002"))
    }
}
