// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing

/// A real agentd on a sandbox, like `AgentProcess`, but with its log written to a file in the
/// sandbox instead of a pipe: no readability handler, no dispatch source on a descriptor that is
/// closed behind it. Waiting for a log line sleeps until the file is written (inotify), with a
/// deadline.
final class FileLoggedAgent {
    let sandbox: Sandbox
    let process = Process()
    let logPath: String
    /// A `/proc` without PSI files, as `AgentProcess` gives its agents: the host's memory pressure
    /// (another test driving a run into its MemoryMax= counts in the global PSI) would shed this
    /// agent's runs — a live processing run expired(pressure) in the middle of a test.
    private let procTree: FakeProcTree

    init(sandbox: Sandbox) throws {
        self.sandbox = sandbox
        procTree = try FakeProcTree.withoutPressure()
        logPath = sandbox.root + "/agentd-\(UUID().uuidString.prefix(8)).log"
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
              let log = FileHandle(forWritingAtPath: logPath) else {
            Issue.record("cannot create \(logPath)")
            throw POSIXError(.EIO)
        }
        process.executableURL = URL(fileURLWithPath: Binaries.agentd)
        process.arguments = ["--config-dir", sandbox.configDirectory, "--state-dir", sandbox.stateDirectory,
                             "--socket", sandbox.socketPath, "--proc-root", procTree.procRoot]
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try log.close()
        try waitForLog("ready:")
    }

    deinit {
        stop()
    }

    var logLines: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").components(separatedBy: "\n")
    }

    /// Waits until a log line contains `text`, or fails the test after `timeout` seconds.
    @discardableResult
    func waitForLog(_ text: String, timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let growth = InotifyWaiter.fileGrowth(logPath)
        while Date() < deadline {
            if let line = logLines.first(where: { $0.contains(text) }) { return line }
            if !process.isRunning { break }
            // Asleep until the agent writes to its log (inotify); the deadline bounds it.
            growth?.wait(seconds: min(1, deadline.timeIntervalSinceNow))
        }
        if let line = logLines.first(where: { $0.contains(text) }) { return line }
        Issue.record("no log line containing \"\(text)\" within \(timeout) s; log:\n\(logLines.suffix(30).joined(separator: "\n"))",
                     sourceLocation: sourceLocation)
        throw POSIXError(.ETIMEDOUT)
    }

    /// Runs agentctl against this agent.
    func ctl(_ arguments: String...) throws -> CommandResult {
        try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + arguments)
    }

    /// SIGTERM, and waits for the agent to exit (it first stops its runs).
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
