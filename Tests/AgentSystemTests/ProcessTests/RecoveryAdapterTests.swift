// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import CShim
import Foundation
import Glibc
import Testing
@testable import AgentSystem

/// The adapters a restarted agent kills leftovers with, on real processes and cgroups.
@Suite(.serialized) struct RecoveryAdapterTests {
    /// `setsid sh -c 'sleep 300 & exec sleep 300'` in the given environment: a new process group
    /// of two processes; returns the group.
    private func processGroup(environment: [String: String]) throws -> (Process, Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["sh", "-c", "sleep 300 & echo $$; exec sleep 300"]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = ""
        while !line.hasSuffix("\n") {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line += String(decoding: byte, as: UTF8.self)
        }
        return (process, Int32(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
    }

    private func waitGone(_ pids: [Int32]) -> Bool {
        for pid in pids {
            let fd = cshim_pidfd_open(pid)
            guard fd >= 0 else { continue }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 10_000)
            close(fd)
            if ready <= 0 { return false }
        }
        return true
    }

    @Test func onlyProcessesWhoseEnvironmentNamesTheRunAreKilled() throws {
        let (own, ownGroup) = try processGroup(environment: ["AGENTD_RUN_ID": "r000042", "AGENTD_IDENTIFIER": "local.x"])
        let (other, otherGroup) = try processGroup(environment: ["AGENTD_RUN_ID": "r000042", "AGENTD_IDENTIFIER": "local.y"])
        defer {
            kill(-otherGroup, SIGKILL); kill(-ownGroup, SIGKILL)
            other.waitUntilExit(); own.waitUntilExit()
        }
        let spared = LeftoverProcesses.killVerified(processGroup: otherGroup, runID: "r000042", identifier: "local.x")
        #expect(spared.killed.isEmpty)
        #expect(spared.spared.count == 2)
        #expect(kill(otherGroup, 0) == 0, "a process of another identifier was killed")

        let killed = LeftoverProcesses.killVerified(processGroup: ownGroup, runID: "r000042", identifier: "local.x")
        #expect(killed.killed.count == 2)
        #expect(killed.spared.isEmpty)
        own.waitUntilExit()
        #expect(waitGone(killed.killed))
    }

    @Test func theBootIDIsReadThroughTheProcRoot() throws {
        let proc = try FakeProcTree()
        try FileManager.default.createDirectory(atPath: proc.procRoot + "/sys/kernel/random", withIntermediateDirectories: true)
        try "0b7e3c1a-aaaa-bbbb-cccc-000000000001\n".write(toFile: proc.procRoot + "/sys/kernel/random/boot_id",
                                                           atomically: false, encoding: .utf8)
        #expect(try BootID.read(procRoot: proc.procRoot).get() == "0b7e3c1a-aaaa-bbbb-cccc-000000000001")
        let missing = BootID.read(procRoot: "/nonexistent")
        #expect(throws: SystemError(call: "read", errno: ENOENT, path: "/nonexistent/sys/kernel/random/boot_id")) {
            try missing.get()
        }
    }

    /// cgroup.kill is asynchronous: the cgroup is removed when cgroup.events says it is empty,
    /// with the loop asleep until then.
    @Test(.enabled(if: TestRunsParent.available, TestRunsParent.reason))
    func aKilledLeftoverCgroupIsRemovedOnceEmpty() throws {
        let parent = try TestRunsParent.make("leftover")
        let path = parent + "/run-r000001"
        try #require(mkdir(path, 0o755) == 0, "mkdir \(path)")
        defer { rmdir(path); rmdir(parent) }
        let (process, group) = try processGroup(environment: [:])
        defer { kill(-group, SIGKILL); process.waitUntilExit() }
        // Move both processes of the group into the cgroup.
        for pid in [group] + (try String(contentsOfFile: "/proc/\(group)/task/\(group)/children", encoding: .utf8))
            .split(separator: " ").compactMap({ Int32($0) }) {
            #expect(writeControlFile(path + "/cgroup.procs", String(pid)) == 0)
        }
        let loop = try EventLoop()
        let leftover = try #require(try LeftoverCgroup(path: path, loop: loop))
        leftover.killAll()
        var result: Result<Void, SystemError>?
        leftover.removeWhenEmpty(keepParent: nil) { result = $0 }
        let deadline = MonotonicInstant.now() + .seconds(10)
        while result == nil, MonotonicInstant.now() < deadline { loop.runOnce(timeout: .seconds(1)) }
        #expect(result.map { (try? $0.get()) != nil } == true, "not removed: \(String(describing: result))")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: parent), "the dead agent's parent, now empty, stays")
    }
}
