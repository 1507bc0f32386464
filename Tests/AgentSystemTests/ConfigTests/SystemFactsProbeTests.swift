// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc
import Testing

/// The plugin and user questions answered from the real system.
struct SystemFactsProbeTests {
    @Test func anExecutablePluginIsPresentAndExecutable() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.write(directory.at("plugin"), "#!/bin/sh\n", mode: 0o755)
        guard case .present(let facts, let executable) = SystemFactsProbe().plugin(at: directory.at("plugin")) else {
            Issue.record("expected a present plugin")
            return
        }
        #expect(executable)
        #expect(facts.isRegularFile && facts.ownerUID == geteuid() && facts.mode & 0o7777 == 0o755)
    }

    /// What `MemoryMax=50%` and `TasksMax=10%` are shares of, checked against what the kernel
    /// says in /proc in its own words.
    @Test func physicalMemoryIsMemTotalsPagesAndTheTaskLimitTheSmallerSysctlLessOne() throws {
        let meminfo = try #require(SmallFile.read("/proc/meminfo"))
        let totalLine = try #require(meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") })
        let kibibytes = try #require(UInt64(totalLine.split(separator: " ")[1]))
        let memory = try #require(SystemFactsProbe().physicalMemory())
        // sysconf counts the same pages MemTotal does.
        #expect(memory.bytes == kibibytes * 1024)

        func sysctl(_ name: String) throws -> Int {
            try #require(SmallFile.read("/proc/sys/kernel/" + name).flatMap { Int($0.filter { !$0.isWhitespace }) })
        }
        #expect(SystemFactsProbe().systemTasksMax() == min(try sysctl("threads-max"), try sysctl("pid_max")) - 1)
    }

    @Test func aFileWithoutExecuteBitsIsNotExecutable() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.write(directory.at("plugin"), "#!/bin/sh\n", mode: 0o644)
        guard case .present(_, let executable) = SystemFactsProbe().plugin(at: directory.at("plugin")) else {
            Issue.record("expected a present plugin")
            return
        }
        #expect(!executable)
    }

    @Test func aSymlinkedPluginReportsItsTarget() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.write(directory.at("real"), "#!/bin/sh\n", mode: 0o750)
        try ConfigFS.symlink(target: "real", at: directory.at("link"))
        guard case .present(let facts, _) = SystemFactsProbe().plugin(at: directory.at("link")) else {
            Issue.record("expected a present plugin")
            return
        }
        #expect(facts.isRegularFile && facts.mode & 0o7777 == 0o750)
    }

    @Test func missingPluginsAreMissing() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.write(directory.at("file"))
        let probe = SystemFactsProbe()
        #expect(probe.plugin(at: directory.at("absent")) == .missing)
        #expect(probe.plugin(at: directory.at("file/below")) == .missing)
    }

    @Test func aSymlinkLoopIsUnreadableWithTheSystemsWords() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.symlink(target: "b", at: directory.at("a"))
        try ConfigFS.symlink(target: "a", at: directory.at("b"))
        #expect(SystemFactsProbe().plugin(at: directory.at("a")) ==
                .unreadable(message: "Too many levels of symbolic links"))
    }

    @Test func groupsAreLookedUp() {
        let probe = SystemFactsProbe()
        #expect(probe.groupExists("root"))
        #expect(!probe.groupExists("agentd-no-such-group-x9"))
        #expect(!probe.groupExists(""))
    }

    @Test func usersAreLookedUpAndKnownOnesRemembered() {
        let probe = SystemFactsProbe()
        #expect(probe.userExists("root"))
        #expect(probe.userExists("root"))
        #expect(!probe.userExists("agentd-no-such-user-x9"))
        #expect(!probe.userExists(""))
        probe.forgetCachedUsers()
        #expect(probe.userExists("root"))
    }

    @Test func theCurrentUserHasItsName() {
        let user = SystemFactsProbe.currentUser()
        #expect(user.uid == geteuid())
        #expect(!user.name.isEmpty)
        if user.uid == 0 { #expect(user.name == "root") }
    }
}
