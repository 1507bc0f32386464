// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// DESIGN §10: a request is acknowledged only once it is durable — and the sync that makes it so
/// never runs on the event loop, where every deadline and every other client would wait behind it.
@Suite(.serialized) struct RequestSyncTests {
    private static let canTrace = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

    @Test(.enabled(if: canTrace, "strace (scripts/install-deps.sh installs it) and root, to attach to the agent"))
    func eachAcknowledgedRequestWaitsForASyncThatNeverRunsOnTheLoopThread() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/work.job", "[Job]\nIdentifier=local.work\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let pid = agent.process.processIdentifier
        let trace = sandbox.root + "/syncs.trace"
        // -f: every thread of the agent, the loop's (whose id is the process id) and the others;
        // -ttt: wall-clock times, to leave out the syncs of the agent's own stop.
        let strace = try LineCollectingProcess(
            name: "strace", executable: "/usr/bin/strace",
            arguments: ["-f", "-ttt", "-e", "trace=fsync,fdatasync,sync_file_range", "-o", trace, "-p", "\(pid)"],
            collectStderr: true)
        try strace.waitForLine(containing: "attached")

        let requests = [["trigger", "local.work"], ["disable", "local.work"], ["enable", "local.work"],
                        ["pause"], ["resume"], ["trigger", "local.work"]]
        for request in requests {
            let result = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + request)
            #expect(result.status == 0, "agentctl \(request.joined(separator: " ")): \(result.stderr)")
        }
        // strace ends when the agent does, having written out all it saw (a signal to strace
        // could be blocked: the test process's children may inherit a blocked mask).
        let answered = Date().timeIntervalSince1970
        agent.stop()
        strace.process.waitUntilExit()

        let syncs = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("sync(") || $0.contains("sync_file_range(") }
            .filter { line in line.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 < answered } ?? true }
        let onLoop = syncs.filter { $0.hasPrefix("\(pid) ") }
        let elsewhere = syncs.filter { $0.contains("fdatasync(") && !$0.hasPrefix("\(pid) ") }
        #expect(onLoop.isEmpty, "syncs on the loop thread:\n\(onLoop.joined(separator: "\n"))")
        // One request at a time, each answered only after a sync of its own.
        #expect(elsewhere.count >= requests.count, "worker syncs: \(elsewhere.count) for \(requests.count) requests\n\(syncs.joined(separator: "\n"))")
    }
}
