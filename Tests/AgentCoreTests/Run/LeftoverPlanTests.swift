// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private let mount = "/sys/fs/cgroup"
private let cgroup = mount + "/system.slice/agentd.service/agentd-runs.812/run-r000007"

private func run(boot: String?, cgroup: String? = cgroup, group: Int32? = 4242) -> RecordedRunPlace {
    RecordedRunPlace(runID: "r000007", identifier: "com.example.export", bootID: boot, cgroup: cgroup,
                     processGroup: group)
}

@Test func aRunOfThisBootIsKilledThroughItsCgroupAndItsVerifiedProcessGroup() {
    #expect(LeftoverPlan.plan(for: run(boot: "b1"), currentBoot: "b1", cgroupMount: mount)
        == .kill(cgroup: cgroup, verifiedProcessGroup: 4242))
}

@Test func aRunOfAnEarlierBootKillsNothing() {
    let plan = LeftoverPlan.plan(for: run(boot: "b0"), currentBoot: "b1", cgroupMount: mount)
    #expect(plan == .killNothing(because: "it ran in an earlier boot (b0)"))
}

@Test func withoutACgroupOnlyTheVerifiedProcessGroupIsKilled() {
    #expect(LeftoverPlan.plan(for: run(boot: "b1", cgroup: nil), currentBoot: "b1", cgroupMount: mount)
        == .kill(cgroup: nil, verifiedProcessGroup: 4242))
}

/// A cgroup cannot outlive a boot, a process group number can be taken again: when the boot
/// cannot be told, only the cgroup is used.
@Test(arguments: [(String?.none, String?.some("b1")), ("b1", nil), (nil, nil)])
func anUnknownBootUsesTheCgroupOnly(_ recorded: String?, _ current: String?) {
    #expect(LeftoverPlan.plan(for: run(boot: recorded), currentBoot: current, cgroupMount: mount)
        == .kill(cgroup: cgroup, verifiedProcessGroup: nil))
    if case .kill = LeftoverPlan.plan(for: run(boot: recorded, cgroup: nil), currentBoot: current, cgroupMount: mount) {
        Issue.record("a process group was to be killed without knowing the boot")
    }
}

@Test(arguments: [Int32(0), 1, -5])
func aProcessGroupOfOneOrLessIsNeverUsed(_ group: Int32) {
    #expect(LeftoverPlan.plan(for: run(boot: "b1", cgroup: nil, group: group), currentBoot: "b1", cgroupMount: mount)
        == .killNothing(because: "it has no recorded processes"))
}

/// A recorded path is data: `cgroup.kill` of the root, or of a service's cgroup, would kill
/// what is not the run's.
@Test(arguments: [mount, mount + "/", mount + "/system.slice", mount + "/agentd-runs.1/run-r000008",
                  mount + "/agentd-runs.1/../run-r000007", "/tmp/agentd-runs.1/run-r000007",
                  mount + "/other/run-r000007", mount + "//run-r000007"])
func onlyARunCgroupOfThisRunIsKilled(_ path: String) {
    #expect(!LeftoverPlan.isRunCgroup(path, runID: "r000007", under: mount))
    #expect(LeftoverPlan.plan(for: run(boot: "b1", cgroup: path), currentBoot: "b1", cgroupMount: mount)
        == .kill(cgroup: nil, verifiedProcessGroup: 4242))
}

@Test func aRunCgroupDirectlyUnderTheMountIsOne() {
    #expect(LeftoverPlan.isRunCgroup(mount + "/agentd-runs.9/run-r000007", runID: "r000007", under: mount))
    #expect(LeftoverPlan.isRunCgroup(cgroup, runID: "r000007", under: mount))
    #expect(!LeftoverPlan.isRunCgroup(cgroup, runID: "r000007", under: nil))
}

// MARK: what no record leads to

@Test func aDeadAgentsRunsParentNamesItsPid() {
    #expect(UnrecordedLeftovers.agentPID(ofRunsParent: mount + "/agentd-runs.4242", under: mount) == 4242)
    #expect(UnrecordedLeftovers.agentPID(ofRunsParent: mount + "/system.slice/agentd.service/agentd-runs.77", under: mount) == 77)
}

/// A noted path is data too: only a runs parent the agent makes is swept.
@Test(arguments: [mount, mount + "/", mount + "/system.slice", mount + "/agentd-runs.", mount + "/agentd-runs.x",
                  mount + "/agentd-runs.1", mount + "/agentd-runs.0", mount + "/agentd-runs.-5", mount + "/agentd-runs.+5",
                  mount + "/agentd-runs.05", mount + "/../agentd-runs.5", mount + "//agentd-runs.5",
                  "/tmp/agentd-runs.5", mount + "/agentd-runs.5/run-r000001"])
func nothingButARunsParentOfAnotherAgentIsSwept(_ path: String) {
    #expect(UnrecordedLeftovers.agentPID(ofRunsParent: path, under: mount) == nil)
}

@Test func aRecordedRunCgroupLeadsToItsRunsParent() {
    #expect(UnrecordedLeftovers.runsParent(ofRunCgroup: cgroup, runID: "r000007", under: mount)
        == mount + "/system.slice/agentd.service/agentd-runs.812")
    #expect(UnrecordedLeftovers.runsParent(ofRunCgroup: mount + "/system.slice/run-r000007", runID: "r000007",
                                           under: mount) == nil)
}

@Test func onlyRunCgroupsSpeltAsTheAgentSpellsThemAreRuns() {
    let names = ["run-r000012", "run-r000003", "run-r12", "run-", "other", "run-r000003x", "run-R000004"]
    #expect(UnrecordedLeftovers.runs(amongSubdirectories: names) == [RunID(3), RunID(12)])
}
