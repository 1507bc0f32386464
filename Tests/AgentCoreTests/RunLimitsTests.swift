// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// TasksMax=, MemoryMax=, MemoryHigh= (DESIGN §3) and what a run that reached them records (§7).
struct RunLimitsTests {
    @Test(arguments: [
        ("1", UInt64(1)), ("4096", 4096), ("512K", 512 << 10), ("64M", 64 << 20), ("2G", 2 << 30),
        ("1T", 1 << 40), ("1.5G", 1536 << 20), ("0.5K", 512), ("1.0001K", 1024),
    ])
    func sizesAreBytesOrOneOfTheBinarySuffixes(_ text: String, _ bytes: UInt64) {
        #expect(ByteSize.parse(text) == ByteSize(bytes: bytes))
    }

    @Test(arguments: ["", "M", "64MB", "64m", "64 M", "-1M", "1.M", ".5G", "1.5", "0x10", "16E", "99999999999T", "1e3"])
    func anythingElseIsNotASize(_ text: String) {
        #expect(ByteSize.parse(text) == nil)
    }

    @Test func aSizePrintsWithTheLargestExactSuffix() {
        #expect(ByteSize(bytes: 64 << 20).description == "64M")
        #expect(ByteSize(bytes: 1536 << 20).description == "1536M")
        #expect(ByteSize(bytes: 1000).description == "1000")
        #expect(ByteSize(bytes: 0).description == "0")
    }

    @Test func tasksMaxDefaultsTo512AndMemoryToNoLimit() throws {
        let job = try #require(parseJob(jobText()).value)
        #expect(job.limits == RunLimits(tasksMax: 512, memoryMax: nil, memoryHigh: nil))
    }

    @Test func readsTheThreeKeys() throws {
        let result = parseJob(jobText("com.example.test", "TasksMax=64\nMemoryMax=1G\nMemoryHigh=768M\n"))
        #expect(result.diagnostics.isEmpty)
        let limits = try #require(result.value).limits
        #expect(limits == RunLimits(tasksMax: 64, memoryMax: ByteSize(bytes: 1 << 30), memoryHigh: ByteSize(bytes: 768 << 20)))
    }

    @Test(arguments: ["infinity", "Infinity"])
    func infinityLiftsALimit(_ word: String) throws {
        let result = parseJob(jobText("com.example.test", "TasksMax=\(word)\nMemoryMax=\(word)\nMemoryHigh=\(word)\n"))
        #expect(try #require(result.value).limits == RunLimits(tasksMax: nil, memoryMax: nil, memoryHigh: nil))
    }

    @Test func anEmptyAssignmentMeansTheDefault() throws {
        let result = parseJob(jobText("com.example.test", "TasksMax=10\nTasksMax=\n"))
        #expect(try #require(result.value).limits.tasksMax == 512)
    }

    @Test func badValuesAreErrorsWithTheLineAndWhatIsValid() {
        let result = parseJob(jobText("com.example.test", "TasksMax=lots\nTasksMax=0\nMemoryMax=64MB\nMemoryHigh=0\n"))
        #expect(result.value == nil)
        // The last TasksMax= wins (systemd's rule), so only line 5 is judged.
        #expect(printed(result.errors) == [
            "jobs.d/test.job:5: TasksMax: \"0\" is out of range (a whole number from 1 to 4194304, such as 512, a percentage of the machine's task limit such as 10%, or infinity)",
            "jobs.d/test.job:6: MemoryMax: \"64MB\" is not a size (a number of bytes, or a number with K, M, G or T (1024-based) such as 512M or 2G, a percentage of physical memory such as 50%; or infinity)",
            "jobs.d/test.job:7: MemoryHigh: must be more than 0 (a number of bytes, or a number with K, M, G or T (1024-based) such as 512M or 2G, a percentage of physical memory such as 50%; or infinity)",
        ])
    }

    @Test(arguments: [
        ("TasksMax=lots", "jobs.d/test.job:4: TasksMax: \"lots\" is not a number of tasks (a whole number from 1 to 4194304, such as 512, a percentage of the machine's task limit such as 10%, or infinity)"),
        ("TasksMax=110%", "jobs.d/test.job:4: TasksMax: \"110%\" is not a percentage from 0.01% to 100% (a percentage such as 50% or 12.5%, of the machine's task limit)"),
        ("MemoryMax=0%", "jobs.d/test.job:4: MemoryMax: \"0%\" is not a percentage from 0.01% to 100% (a percentage such as 50% or 12.5%, of the machine's physical memory)"),
        ("MemoryHigh=12.345%", "jobs.d/test.job:4: MemoryHigh: \"12.345%\" is not a percentage from 0.01% to 100% (a percentage such as 50% or 12.5%, of the machine's physical memory)"),
        ("TasksMax=99999999999999999999999", "jobs.d/test.job:4: TasksMax: \"99999999999999999999999\" is out of range (a whole number from 1 to 4194304, such as 512, a percentage of the machine's task limit such as 10%, or infinity)"),
        ("MemoryMax=64m", "jobs.d/test.job:4: MemoryMax: \"64m\" is not a size (a number of bytes, or a number with K, M, G or T (1024-based) such as 512M or 2G, a percentage of physical memory such as 50%; or infinity); suffixes are upper case: 64M"),
    ])
    func eachErrorSaysWhatWouldBeValid(_ line: String, _ message: String) {
        #expect(printed(parseJob(jobText("com.example.test", line + "\n")).errors) == [message])
    }

    @Test(arguments: [
        ("50%", UInt64(5000)), ("100%", 10000), ("12.5%", 1250), ("0.25%", 25), ("0.01%", 1), ("5‰", 50),
        ("2.5‰", 25), ("25‱", 25), ("007%", 700),
    ])
    func aShareIsAPercentagePermilleOrPermyriadAsSystemdReadsIt(_ text: String, _ permyriad: UInt64) {
        #expect(MachineShare.parse(text)?.permyriad == permyriad)
    }

    @Test(arguments: ["101%", "%", "1.%", ".5%", "1.234%", "1.25‰", "1.5‱", "-1%", "50 %", "50", "0x10%", "9999999%"])
    func anythingElseIsNotAShare(_ text: String) {
        #expect(MachineShare.parse(text) == nil)
    }

    @Test func aShareOfTheWholeMachineRoundsDown() throws {
        #expect(try #require(MachineShare.parse("12.5%")).of(1000) == 125)
        #expect(try #require(MachineShare.parse("33.33%")).of(100) == 33)
        #expect(try #require(MachineShare.parse("100%")).of(UInt64.max) == UInt64.max)
        #expect(try #require(MachineShare.parse("12.5%")).description == "12.5%")
        #expect(try #require(MachineShare.parse("5‰")).description == "0.5%")
        #expect(try #require(MachineShare.parse("1‱")).description == "0.01%")
    }

    /// systemd resolves `MemoryMax=50%` against physical memory (whole pages) and `TasksMax=10%`
    /// against the machine's task limit when it reads the unit; so does the agent.
    @Test func percentagesAreSharesOfTheMachineResolvedWhenTheFileIsRead() throws {
        let result = parseJob(jobText("com.example.test", "TasksMax=10%\nMemoryMax=50%\nMemoryHigh=37.5%\n"))
        #expect(result.diagnostics.isEmpty)
        let limits = try #require(result.value).limits
        #expect(limits == RunLimits(tasksMax: 3276, memoryMax: ByteSize(bytes: 8 << 30),
                                    memoryHigh: ByteSize(bytes: 6 << 30)))
        #expect(limits.memoryMaxSetting == "MemoryMax=8G")
    }

    @Test func aTinyShareIsWholePagesAndWarnedLikeATinySize() throws {
        let result = parseJob(jobText("com.example.test", "MemoryMax=0.01%\nTasksMax=0.01%\n"))
        let limits = try #require(result.value).limits
        // 16 GiB × 0.0001 = 1,717,986 bytes, 419 whole pages; 32,767 tasks × 0.0001 = 3.
        #expect(limits.memoryMax == ByteSize(bytes: 419 * 4096) && limits.tasksMax == 3)
        #expect(printed(result.diagnostics) == [
            "jobs.d/test.job:4: warning: MemoryMax: \"0.01%\" is 1716224 bytes, less than any program needs to start (4M); its runs will end expired(limit) or spawn-failed",
        ])
    }

    @Test func aPercentageWhereTheMachineCannotBeReadAsksForAnAbsoluteValue() {
        var facts = FakeFacts()
        facts.memory = nil
        facts.tasksLimit = nil
        let result = parseJob(jobText("com.example.test", "MemoryMax=50%\nTasksMax=10%\n"), facts: facts)
        #expect(printed(result.errors) == [
            "jobs.d/test.job:4: MemoryMax: 50% needs the machine's physical memory, which could not be read here; write an absolute value",
            "jobs.d/test.job:5: TasksMax: 10% needs the machine's task limit, which could not be read here; write an absolute value",
        ])
    }

    @Test func aMemoryHighNotBelowMemoryMaxIsAWarning() throws {
        let result = parseJob(jobText("com.example.test", "MemoryMax=64M\nMemoryHigh=64M\n"))
        #expect(result.value != nil)
        #expect(printed(result.diagnostics) == [
            "jobs.d/test.job:5: warning: MemoryHigh: 64M is not below MemoryMax=64M, so it never throttles before the OOM killer acts; lower it or remove it",
        ])
    }

    @Test func aDropInScriptHeaderSetsLimitsToo() throws {
        let text = "#!/bin/sh\n# agentd: TasksMax=32 MemoryMax=256M\nexit 0\n"
        let script = DropInScript.parse(Array(text.utf8), path: "jobs.d/backup", context: privilegedContext,
                                        facts: FakeFacts())
        let limits = try #require(script.value).limits
        #expect(limits.tasksMax == 32 && limits.memoryMax == ByteSize(bytes: 256 << 20))
    }

    // MARK: what a run records

    @Test func aRefusedForkIsTheTasksLimitAndAnOOMKillAtMemoryMaxTheMemoryLimit() {
        let limits = RunLimits(tasksMax: 20, memoryMax: ByteSize(bytes: 64 << 20))
        let hits = RunLimitHit.hits(limits, LimitCounters(refusedForks: 3, memoryMaxReached: 10, oomKills: 1))
        #expect(hits.map(\.description) == [
            "TasksMax=20 (the kernel refused 3 forks)", "MemoryMax=64M (the OOM killer killed 1 process)",
        ])
    }

    @Test func anOOMKillWithoutAMemoryMaxOrBelowItIsNotTheRunsLimit() {
        let counters = LimitCounters(refusedForks: 0, memoryMaxReached: 0, oomKills: 2)
        #expect(RunLimitHit.hits(RunLimits(memoryMax: nil), counters).isEmpty)
        #expect(RunLimitHit.hits(RunLimits(memoryMax: ByteSize(bytes: 1 << 30)), counters).isEmpty)
        #expect(RunLimitHit.hits(RunLimits(), LimitCounters()).isEmpty)
    }

    @Test func countersAreReadFromFlatKeyedCgroupFiles() {
        #expect(LimitCounters.value(of: "max", in: "max 7\n") == 7)
        #expect(LimitCounters.value(of: "oom_kill", in: "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n") == 2)
        #expect(LimitCounters.value(of: "max", in: "low 0\nhigh 4\nmax 3\noom 1\noom_kill 1\n") == 3)
        #expect(LimitCounters.value(of: "max", in: "") == 0)
    }

    @Test func theLimitNamedInTheLogTailIsTheAgentsTrailingLine() {
        let hit = RunLimitHit.tasks(limit: 20, refusedForks: 1)
        let tail = ["agentd: limit reached: MemoryMax=1K (forged by the plugin)", "forked 19", hit.logLine]
        #expect(RunLimitHit.details(inLogTail: tail) == ["TasksMax=20 (the kernel refused 1 fork)"])
        #expect(RunLimitHit.details(inLogTail: ["plain"]).isEmpty)
    }

    @Test func aRunThatReachedItsLimitEndsExpiredLimitWhateverItsExit() {
        #expect(StopReason.expired(.limit).description == "expired(limit)")
        #expect(StopReason(parsing: "expired(limit)") == .expired(.limit))
        #expect(StopReason.resolve(termination: .exited(0), expiredFor: .limit, cancelled: false) == .expired(.limit))
    }

    @Test func statusGroupsKeysThatShareAVerdict() {
        let summary = LimitEnforcement.summary([
            LimitEnforcement(key: "TasksMax", by: "cgroup v1 pids"),
            LimitEnforcement(key: "MemoryMax", notEnforcedBecause: "no cgroup v1 memory hierarchy"),
            LimitEnforcement(key: "MemoryHigh", notEnforcedBecause: "no cgroup v1 memory hierarchy"),
        ])
        #expect(summary.enforced == ["TasksMax enforced (cgroup v1 pids)"])
        #expect(summary.notEnforced == ["MemoryMax and MemoryHigh not enforced (no cgroup v1 memory hierarchy)"])
    }
}
