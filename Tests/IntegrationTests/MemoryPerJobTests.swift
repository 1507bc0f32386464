// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What a loaded job costs the agent in memory (issue 17: ≤ 1 KB a job in the shipped build).
/// Measured as the growth of the agent's anonymous memory (heap and private mappings, not the
/// binary's pages) between 100 and 2,100 jobs, each agent loaded, ready and answering `status`.
@Suite(.serialized) struct MemoryPerJobTests {
    static let fewJobs = 100
    static let manyJobs = 2100

    @Test func aLoadedJobCostsTheAgentLessThanOneAndAQuarterKilobytes() throws {
        let few = try anonymousKiBAfterLoading(jobs: Self.fewJobs)
        let many = try anonymousKiBAfterLoading(jobs: Self.manyJobs)
        let bytesPerJob = (many - few) * 1024 / (Self.manyJobs - Self.fewJobs)
        // Each job's definition was held three times, inline in the registry's and the
        // scheduler's dictionaries: about 3.4 KB a job in this debug build. Held once, shared
        // (1.7 KB), its rarely set settings in a box shared by all jobs that leave them at their
        // defaults, its path once and its Exec= line once among the jobs that share it (1.2 KB),
        // and the scheduler's wait state out of line: 1.1 KB.
        #expect(bytesPerJob < 1280, "\(few) KiB with \(Self.fewJobs) jobs, \(many) KiB with \(Self.manyJobs): \(bytesPerJob) bytes a job")
    }

    private func anonymousKiBAfterLoading(jobs: Int) throws -> Int {
        let sandbox = try Sandbox()
        for index in 0..<jobs {
            try sandbox.write("jobs.d/job\(index).job", sandbox.jobFile("job\(index)", interval: "none"))
        }
        let agent = try AgentProcess(sandbox: sandbox)
        defer { agent.stop() }
        try agent.waitForLog("manifest, \(jobs) jobs, 0 config errors")
        #expect(try agent.ctl("status").status == 0)
        return try #require(anonymousKiB(agent.process.processIdentifier))
    }

    private func anonymousKiB(_ pid: Int32) -> Int? {
        ProcessInspection.kibibytes("Anonymous", of: pid, in: "smaps_rollup")
    }
}
