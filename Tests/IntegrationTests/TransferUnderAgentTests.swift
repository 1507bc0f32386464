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
        let waiter = try #require(InotifyWaiter.fileGrowth(part))
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

    @Test func theShippedUnpackJobUnpacksWhatTheChainedTransferNamed() throws {
        let server = try NginxServer()
        let source = server.root + "/nightly"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try "built at 02:00\n".write(toFile: source + "/VERSION", atomically: false, encoding: .utf8)
        let tar = try runCommand("/bin/tar", ["-czf", server.files + "/latest.tar.gz", "-C", source, "VERSION"])
        #expect(tar.status == 0, "\(tar.stderr)")
        chmod(server.files + "/latest.tar.gz", 0o644)
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("etc/examples/transfer").path
        // The example's manifest and unpack job as shipped; the nightly job pointed at this server
        // and built plugin (the shipped one also needs AC power and an unmetered network).
        try FileManager.default.copyItem(atPath: examples + "/com.example.transfer.manifest",
                                         toPath: sandbox.manifestsDirectory + "/com.example.transfer.manifest")
        try FileManager.default.copyItem(atPath: examples + "/unpack.job", toPath: sandbox.jobsDirectory + "/unpack.job")
        try sandbox.write("jobs.d/nightly.job", """
            [Job]
            Identifier=com.example.nightly
            Kind=processing
            Exec=\(Binaries.transfer) \(server.url("latest.tar.gz")) nightly.tar.gz
            OnSuccess=com.example.unpack

            """)
        let proc = try FakeProcTree()
        let agent = try AgentProcess(sandbox: sandbox, extraArguments: ["--proc-root", proc.procRoot])
        defer { agent.stop() }
        #expect(try agent.ctl("simulate", "launch", "com.example.nightly").status == 0)
        let unpacked = try agent.waitForLog("of com.example.unpack ended:", timeout: 60)
        #expect(unpacked.contains("success"), "\(unpacked)")
        let version = try String(contentsOfFile: sandbox.stateDirectory + "/jobs/com.example.unpack/nightly/VERSION", encoding: .utf8)
        #expect(version == "built at 02:00\n")
    }

    func size(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
