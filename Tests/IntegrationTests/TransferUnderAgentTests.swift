// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Glibc
import Testing

/// The transfer plugin run by a real agentd: expired mid-way, it leaves a checkpoint, and the next
/// run resumes with a Range request (nginx's access log shows the 206).
@Suite(.serialized, .enabled(if: NginxServer.available, "nginx is not installed (apt-get install nginx; install-deps.sh does)"))
struct TransferUnderAgentTests {
    @Test func aTransferExpiredMidwayResumesWithARangeRequestOnTheNextRun() throws {
        let server = try NginxServer(slowRate: "1m")
        let digest = try server.serve("nightly.bin", bytes: 5_000_000)
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)  // the plugin runs as nobody when the agent is root
        try sandbox.write("jobs.d/fetch.job", """
            [Job]
            Identifier=local.fetch
            Kind=processing
            Exec=\(Binaries.transfer) --sha256 \(digest) \(server.url("slow/nightly.bin")) nightly.bin
            GracePeriod=10s

            """)
        // A quiet fake /proc/pressure: on a shared machine, other work's memory pressure would
        // expire the run (expired(pressure)) before the test's own expiry.
        let proc = try FakeProcTree()
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--proc-root", proc.procRoot])
        defer { agent.stop() }
        let part = sandbox.stateDirectory + "/jobs/local.fetch/nightly.bin.part"

        let first = try agent.ctl("simulate", "launch", "local.fetch")
        #expect(first.status == 0, "\(first.stderr)")
        try agent.waitForLog("[local.fetch r000001] transfer: downloading")
        let waiter = try #require(FileGrowthWaiter(path: part))
        let deadline = Date().addingTimeInterval(30)
        while size(of: part) < 500_000 && Date() < deadline { waiter.wait(seconds: 1) }
        #expect(try agent.ctl("simulate", "expire", "local.fetch").status == 0)
        try agent.waitForLog("[local.fetch r000001] transfer: stopped by a signal at byte")
        let firstEnd = try agent.waitForLog("run r000001 of local.fetch ended:", timeout: 30)
        #expect(firstEnd.contains("expired(simulated)"), "\(firstEnd)")
        let kept = size(of: part)
        #expect(kept >= 500_000 && kept < 5_000_000)

        let second = try agent.ctl("simulate", "launch", "local.fetch")
        #expect(second.status == 0, "\(second.stderr)")
        try agent.waitForLog("[local.fetch r000002] transfer: resuming at byte \(kept)")
        let secondEnd = try agent.waitForLog("run r000002 of local.fetch ended:", timeout: 60)
        #expect(secondEnd.contains("success"), "\(secondEnd)")
        #expect(try sha256(of: sandbox.stateDirectory + "/jobs/local.fetch/nightly.bin") == digest)
        let resumed = server.requests.filter { $0.hasPrefix("206 GET /slow/nightly.bin range=bytes=\(kept)- if-range=\"") }
        #expect(resumed.count == 1, "access log: \(server.requests)")
    }

    func size(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
