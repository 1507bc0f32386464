// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@Suite(.serialized) struct IdleTrimTests {
    /// A minute after its last write, with nothing live or due, the agent gives back the pages
    /// start-up touched, and answers as before (reading back what it needs). Takes a minute.
    @Test func anIdleAgentGivesItsStartUpPagesBackAndStillAnswers() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/yearly.job", "[Job]\nIdentifier=local.yearly\nKind=processing\nExec=/bin/true\nSchedule=*-01-01 00:00:00\n")
        // A copy of agentd of its own, synced: the kernel reclaims only pages no other process
        // maps and that are clean, and the suite's other agents map the build's binary.
        let copy = sandbox.root + "/agentd"
        try FileManager.default.copyItem(atPath: Binaries.agentd, toPath: copy)
        let fd = open(copy, O_RDONLY)
        try #require(fd >= 0)
        #expect(fsync(fd) == 0)
        close(fd)
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--bench-probes"],
                                     wrapper: ["/bin/sh", "-c", "shift; exec \"$0\" \"$@\"", copy])
        defer { agent.stop() }
        #expect(try agent.ctl("status").status == 0)
        let pid = agent.process.processIdentifier
        let before = try #require(ProcessInspection.kibibytes("RssFile", of: pid))
        let line = try agent.waitForLog("idle trim:", timeout: 150)
        #expect(!line.contains(" 0 KiB"), "\(line)")
        let after = try #require(ProcessInspection.kibibytes("RssFile", of: pid))
        #expect(after < before * 3 / 4, "file-backed RSS \(before) KiB before the trim, \(after) KiB after")
        let status = try agent.ctl("status")
        #expect(status.status == 0)
        #expect(status.stdout.contains("1 job"), "\(status.stdout)")
    }
}
