// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A real agentd on temp directories, driven by real file operations and real agentctl calls.
@Suite(.serialized) struct ConfigReloadTests {
    @Test func aJobFileDroppedIntoJobsDIsRegisteredWithoutAReload() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try sandbox.write("jobs.d/backup.job", sandbox.jobFile("backup"))
        try agent.waitForLog("registered local.backup")
        let job = try #require(try listedJobs(agent)["local.backup"])
        #expect(job["state"] as? String == "registered")
        #expect(job["source"] as? String == "jobs.d/backup.job")
        #expect(job["kind"] as? String == "processing")
    }

    @Test func aChangedJobFileReplacesTheOldDefinition() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/sync.job", sandbox.jobFile("sync"))
        let agent = try AgentProcess(sandbox: sandbox)
        let mark = agent.logLines.count
        try sandbox.write("jobs.d/sync.job", sandbox.jobFile("sync", kind: "refresh"))
        try agent.waitForLog("updated local.sync", after: mark)
        #expect(try listedJobs(agent)["local.sync"]?["kind"] as? String == "refresh")
    }

    @Test func aBrokenFileKeepsTheLastGoodVersionAndShowsTheErrorUntilFixed() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/report.job", sandbox.jobFile("report"))
        let agent = try AgentProcess(sandbox: sandbox)
        var mark = agent.logLines.count
        try sandbox.write("jobs.d/report.job", "[Job]\nIdentifier=local.report\nKind=processing\nExec=\(sandbox.pluginPath)\nInterval=1x\n")
        try agent.waitForLog("jobs.d/report.job:5", after: mark)

        // The old version is still in force, and status names the file, line and key.
        #expect(try listedJobs(agent)["local.report"]?["state"] as? String == "registered")
        let status = try agent.ctl("status")
        #expect(status.status == 0)
        #expect(status.stdout.contains("jobs.d/report.job:5: Interval: \"1x\" is not a time span"))

        mark = agent.logLines.count
        try sandbox.write("jobs.d/report.job", sandbox.jobFile("report", interval: "2h"))
        try agent.waitForLog("updated local.report", after: mark)
        let fixed = try agent.ctl("status", "--json")
        let diagnostics = (try json(fixed.stdout) as? [String: Any])?["diagnostics"] as? [Any]
        #expect(diagnostics?.isEmpty == true)
        #expect(try listedJobs(agent)["local.report"]?["intervalSeconds"] as? Int == 7200)
    }

    @Test func deletingAJobFileUnregistersIt() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/gone.job", sandbox.jobFile("gone"))
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try listedJobs(agent)["local.gone"] != nil)
        try FileManager.default.removeItem(atPath: sandbox.jobsDirectory + "/gone.job")
        try agent.waitForLog("removed local.gone")
        #expect(try listedJobs(agent)["local.gone"] == nil)
    }

    /// Two files of one job removed together: the job is removed, with no line about where it
    /// would have come from in between.
    @Test func deletingAJobAndItsDuplicateTogetherLogsOnlyTheRemoval() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/dd.job", sandbox.jobFile("dd"))
        try sandbox.write("jobs.d/dd-a.job", sandbox.jobFile("dd"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let mark = agent.logLines.count
        try FileManager.default.removeItem(atPath: sandbox.jobsDirectory + "/dd.job")
        try FileManager.default.removeItem(atPath: sandbox.jobsDirectory + "/dd-a.job")
        try agent.waitForLog("removed local.dd", after: mark)
        let said = agent.logLines.dropFirst(mark)
        #expect(!said.contains { $0.contains(" from ?") }, "\(said)")
    }

    @Test func renamingAJobFileMovesItsSource() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/a.job", sandbox.jobFile("moved"))
        let agent = try AgentProcess(sandbox: sandbox)
        let mark = agent.logLines.count
        #expect(rename(sandbox.jobsDirectory + "/a.job", sandbox.jobsDirectory + "/b.job") == 0)
        try agent.waitForLog("updated local.moved from jobs.d/b.job", after: mark)
        let jobs = try listedJobs(agent)
        #expect(jobs["local.moved"]?["source"] as? String == "jobs.d/b.job")
        #expect(jobs.count == 1)
        // The gone name is let go at once: never a duplicate of its new name, not even briefly.
        let said = agent.logLines.dropFirst(mark)
        #expect(!said.contains { $0.contains("also defined by") }, "\(said)")
        let files = try JSONDecoding.array(try agent.ctl("list", "--json").stdout)
        #expect(files.map { $0["source"] as? String } == ["jobs.d/b.job"])
    }

    @Test func anEditorStyleSaveIsOneChangeAndItsLeftoversAreIgnored() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try sandbox.write("jobs.d/notes.job~", "garbage without equals\n")
        try sandbox.writeAtomically("jobs.d/notes.job", sandbox.jobFile("notes"))
        try agent.waitForLog("registered local.notes")
        let status = try agent.ctl("status", "--json")
        let diagnostics = (try json(status.stdout) as? [String: Any])?["diagnostics"] as? [Any]
        #expect(diagnostics?.isEmpty == true, "leftovers must not be parsed: \(status.stdout)")
    }

    @Test func removingAndRecreatingJobsDIsFollowed() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/one.job", sandbox.jobFile("one"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        try FileManager.default.removeItem(atPath: sandbox.jobsDirectory)
        // A missing directory is not an empty one: its jobs stay until it is back.
        try agent.waitForLog("jobs.d missing")
        #expect(try listedJobs(agent)["local.one"] != nil)

        try FileManager.default.createDirectory(atPath: sandbox.jobsDirectory, withIntermediateDirectories: false)
        try agent.waitForLog("removed local.one")
        try sandbox.write("jobs.d/two.job", sandbox.jobFile("two"))
        try agent.waitForLog("registered local.two")
        // And the new directory keeps being watched.
        try sandbox.write("jobs.d/three.job", sandbox.jobFile("three"))
        try agent.waitForLog("registered local.three")
        #expect(Set(try listedJobs(agent).keys) == ["local.two", "local.three"])
    }

    @Test func fiveHundredFilesDroppedAtOnceAreAllRegistered() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        for index in 0..<500 {
            try sandbox.write("jobs.d/bulk\(index).job", sandbox.jobFile("bulk\(index)"))
        }
        // The agent logs each registration: wait for all 500 lines, then ask.
        for index in 0..<500 {
            try agent.waitForLog("registered local.bulk\(index) from", timeout: 30)
        }
        let jobs = try listedJobs(agent)
        #expect(jobs.count == 500)
        #expect(jobs.values.allSatisfy { $0["state"] as? String == "registered" })
    }

    @Test func aJobNoManifestPermitsIsListedAsNotPermitted() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try sandbox.write("jobs.d/stray.job", "[Job]\nIdentifier=com.stray.task\nExec=\(sandbox.pluginPath)\n")
        try agent.waitForLog("com.stray.task")
        let state = try listedJobs(agent)["com.stray.task"]?["state"] as? String
        #expect(state?.hasPrefix("not-permitted") == true)

        // Permitting it through a new manifest registers it, without touching the job file.
        let mark = agent.logLines.count
        try sandbox.write("manifests.d/stray.manifest", "[Manifest]\nPermittedIdentifiers=com.stray.*\nBackgroundModes=processing\n")
        try agent.waitForLog("com.stray.task", after: mark)
        #expect(try listedJobs(agent)["com.stray.task"]?["state"] as? String == "registered")
    }

    @Test func sighupRescansTheWholeDirectory() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        let mark = agent.logLines.count
        kill(agent.process.processIdentifier, SIGHUP)
        try agent.waitForLog("SIGHUP", after: mark)
        #expect(agent.process.isRunning)
    }
}
