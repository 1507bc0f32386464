// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What the event loop must not wait for, traced on a real agent with strace: DESIGN §10's sync
/// of an acknowledged request, and the inode allocation of a job's state directory at its first
/// run — both can take milliseconds, with every deadline and every other client behind them.
@Suite(.serialized) struct RequestSyncTests {
    private static let canTrace = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

    @Test(.enabled(if: canTrace, "strace (scripts/install-deps.sh installs it) and root, to attach to the agent"))
    func eachAcknowledgedRequestWaitsForASyncThatNeverRunsOnTheLoopThread() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/work.job", "[Job]\nIdentifier=local.work\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let pid = agent.process.processIdentifier
        let trace = try SyscallTrace(agent, "fsync,fdatasync,sync_file_range", to: sandbox.root + "/syncs.trace")

        let requests = [["trigger", "local.work"], ["disable", "local.work"], ["enable", "local.work"],
                        ["pause"], ["resume"], ["trigger", "local.work"]]
        for request in requests {
            let result = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + request)
            #expect(result.status == 0, "agentctl \(request.joined(separator: " ")): \(result.stderr)")
        }
        let answered = Date().timeIntervalSince1970
        let syncs = try trace.lines(stopping: agent)
            .filter { $0.contains("sync(") || $0.contains("sync_file_range(") }
            .filter { line in line.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 < answered } ?? true }
        let onLoop = syncs.filter { $0.hasPrefix("\(pid) ") }
        let elsewhere = syncs.filter { $0.contains("fdatasync(") && !$0.hasPrefix("\(pid) ") }
        #expect(onLoop.isEmpty, "syncs on the loop thread:\n\(onLoop.joined(separator: "\n"))")
        // One request at a time, each answered only after a sync of its own.
        #expect(elsewhere.count >= requests.count, "worker syncs: \(elsewhere.count) for \(requests.count) requests\n\(syncs.joined(separator: "\n"))")
    }

    @Test(.enabled(if: canTrace, "strace (scripts/install-deps.sh installs it) and root, to attach to the agent"))
    func aJobsFirstRunHasItsStateDirectoryMadeByThePluginsChildNotTheLoop() throws {
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)
        try sandbox.write("jobs.d/first.job", "[Job]\nIdentifier=local.first\nExec=\(sandbox.pluginPath)\nUser=nobody\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let pid = agent.process.processIdentifier
        let trace = try SyscallTrace(agent, "mkdir,mkdirat", to: sandbox.root + "/mkdirs.trace")
        for _ in 0..<2 {
            let mark = agent.logLines.count
            #expect(try agent.ctl("simulate", "launch", "local.first").status == 0)
            try agent.waitForLog("of local.first ended: success", after: mark)
        }
        let directory = sandbox.stateDirectory + "/jobs/local.first"
        let made = try trace.lines(stopping: agent)
            .filter { $0.contains("\"\(directory)\"") }
        #expect(made.count == 1, "one mkdir, at the first run only:\n\(made.joined(separator: "\n"))")
        #expect(made.allSatisfy { !$0.hasPrefix("\(pid) ") }, "made on the loop thread:\n\(made.joined(separator: "\n"))")
        var info = stat()
        #expect(stat(directory, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFDIR)
        #expect(info.st_mode & 0o777 == 0o700, "the run's user's alone")
        #expect(info.st_uid == UserAccountLookup.uid("nobody"), "given to the plugin's user")
    }
}

/// strace attached to every thread of a running agent (-f: the loop's, whose id is the process
/// id, and the others; -ttt: wall-clock times), writing the given system calls to a file.
private struct SyscallTrace {
    let path: String
    let strace: LineCollectingProcess

    init(_ agent: AgentProcess, _ calls: String, to path: String) throws {
        self.path = path
        strace = try LineCollectingProcess(
            name: "strace", executable: "/usr/bin/strace",
            arguments: ["-f", "-ttt", "-e", "trace=" + calls, "-o", path, "-p", "\(agent.process.processIdentifier)"],
            collectStderr: true)
        try strace.waitForLine(containing: "attached")
    }

    /// Stops the agent and returns the trace's lines: strace ends when the agent does, having
    /// written out all it saw (a signal to strace could be blocked: the test process's children
    /// may inherit a blocked mask).
    func lines(stopping agent: AgentProcess) throws -> [Substring] {
        agent.stop()
        strace.process.waitUntilExit()
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    }
}

/// The uid of a user in the real user database.
private enum UserAccountLookup {
    static func uid(_ name: String) -> uid_t? { getpwnam(name).map { $0.pointee.pw_uid } }
}
