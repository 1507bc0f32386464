// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import CShim
import Foundation
import Glibc
import Testing

/// `agentctl submit --wait` follows the run on the event stream and exits with its stop reason
/// (docs/agentctl.md): 0 success, 1 failure, 6 expired, 7 cancelled, 8 crashed or spawn-failed;
/// 3/4/5 for refusals as every command.
@Suite(.serialized) struct SubmitWaitTests {
    private func continuedJob(_ sandbox: Sandbox, _ name: String, _ body: String, extra: String = "") throws {
        let path = try sandbox.script(name, body)
        try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nKind=continued\nExec=\(path)\n\(extra)")
    }

    @Test func theExitStatusSaysHowTheRunEnded() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "fine", "echo PROGRESS=1/1\n")
        try continuedJob(sandbox, "failing", "exit 3\n")
        try continuedJob(sandbox, "slow", "echo PROGRESS=1/2\nexec sleep 30\n", extra: "MaxRuntime=1s\nGracePeriod=1s\n")
        try continuedJob(sandbox, "crashing", "kill -KILL $$\n")
        let agent = try AgentProcess(sandbox: sandbox)

        let fine = try agent.ctl("submit", "local.fine", "--wait")
        #expect(fine.status == 0)
        #expect(fine.stdout.hasPrefix("submitted local.fine as request 1: started run r000001\n"), "\(fine.stdout)")
        #expect(fine.stdout.contains("local.fine: success"))
        let failing = try agent.ctl("submit", "local.failing", "--wait")
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("local.failing: failure(exit 3)"))
        let expired = try agent.ctl("submit", "local.slow", "--wait")
        #expect(expired.status == 6, "\(expired.stdout)\(expired.stderr)")
        #expect(expired.stdout.contains("expired(max-runtime)"))
        let crashed = try agent.ctl("submit", "local.crashing", "--wait")
        #expect(crashed.status == 8, "\(crashed.stdout)\(crashed.stderr)")
        #expect(crashed.stdout.contains("crashed(signal 9)"))
        let refused = try agent.ctl("submit", "other.thing", "--wait")
        #expect(refused.status == 3, "\(refused.stderr)")
    }

    /// `run --wait`: the administrator's "run it now and tell me how it went", as `systemctl start`
    /// waits for a oneshot service.
    @Test func runWaitFollowsTheManualRunAndExitsWithItsStopReason() throws {
        let sandbox = try Sandbox()
        let failing = try sandbox.script("failing", "echo working\nexit 3\n")
        let fine = try sandbox.script("fine", "exit 0\n")
        let slow = try sandbox.script("slow", "exec sleep 30\n")
        for (name, path) in [("failing", failing), ("fine", fine), ("slow", slow)] {
            try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nKind=processing\nExec=\(path)\nSchedule=2099-01-01\n")
        }
        let agent = try AgentProcess(sandbox: sandbox)

        let failed = try agent.ctl("run", "local.failing", "--wait")
        #expect(failed.status == 1, "\(failed)")
        #expect(failed.stdout.hasPrefix("started run r000001 of local.failing (manual"), "\(failed.stdout)")
        #expect(failed.stdout.hasSuffix("r000001 local.failing: failure(exit 3)\n"), "\(failed.stdout)")
        #expect(try agent.ctl("run", "local.fine", "--wait").status == 0)

        #expect(try agent.ctl("run", "local.slow").status == 0)
        let busy = try agent.ctl("run", "local.slow", "--wait")
        #expect(busy.status == 5, "\(busy)")
        #expect(busy.stderr.contains("already running as r000003"), "\(busy.stderr)")
        #expect(try agent.ctl("cancel", "r000003").status == 0)
    }

    @Test func aCancelledRunExitsSevenAQueuedSubmissionIsFollowedUntilItRunsAndOneDroppedFromTheQueueExitsFive() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "long", "echo PROGRESS=1/2\nexec sleep 60\n")
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=1\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let first = try WaitingSubmit(agent: agent, identifier: "local.long.first")
        try agent.waitForLog("run r000001 of local.long.first started")
        let second = try WaitingSubmit(agent: agent, identifier: "local.long.second")
        try agent.waitForLog("queued at position 1")
        // A queued submission cancelled before it starts: its follower is told, exit 5.
        let third = try WaitingSubmit(agent: agent, identifier: "local.long.third")
        try agent.waitForLog("queued at position 2")
        #expect(try agent.ctl("cancel-request", "local.long.third").stdout.contains("withdrew 1 submission"))
        let thirdResult = try third.finish()
        #expect(thirdResult.status == 5, "\(thirdResult)")
        #expect(thirdResult.stdout.contains("the submission of local.long.third was dropped before it started"))
        #expect(try agent.ctl("cancel", "r000001").status == 0)
        let firstResult = try first.finish()
        #expect(firstResult.status == 7, "\(firstResult)")
        #expect(firstResult.stdout.contains("r000001 local.long.first: cancelled"))
        try agent.waitForLog("run r000002 of local.long.second started")
        #expect(try agent.ctl("cancel", "r000002").status == 0)
        let secondResult = try second.finish()
        #expect(secondResult.status == 7, "\(secondResult)")
        #expect(secondResult.stdout.contains("queued (position 1)"))
        #expect(secondResult.stdout.contains("r000002 local.long.second: cancelled"), "the queued one followed its own run")
    }

    /// The library's `cancel(taskRequestWithIdentifier:)` sends `exact`: a continued job's own
    /// identifier then withdraws only what was submitted with it, as iOS cancels one
    /// identifier's request; agentctl's `cancel-request` of the job withdraws all of its.
    @Test func anExactWithdrawalLeavesTheDynamicIdentifiersSubmissionsQueued() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "long", "echo PROGRESS=1/2\nexec sleep 60\n")
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=1\n")
        let agent = try AgentProcess(sandbox: sandbox)
        for id in ["local.long.first", "local.long", "local.long.second", "local.long"] {
            #expect(try agent.ctl("submit", id).status == 0)
        }
        func exactly(_ target: String) throws -> String? {
            let client = try ControlClient.connect(path: sandbox.socketPath)
            try client.send(line: Array(#"{"command":"cancel-request","exact":true,"target":"\#(target)"}"#.utf8))
            return try EventSubscriber.object(try client.readLine(timeout: .seconds(20)))["message"] as? String
        }
        #expect(try exactly("local.long") == "withdrew 2 submissions for local.long")
        let pending = try agent.ctl("pending").stdout
        #expect(pending.contains("local.long.second") && !pending.contains("local.long "), "\(pending)")
        #expect(try agent.ctl("cancel-request", "local.long").stdout.contains("withdrew 1 submission for local.long"))
        #expect(try agent.ctl("cancel", "r000001").status == 0)
    }
}

extension SubmitWaitTests {
    @Test func ctrlCDetachesAndSaysHowToCancelTheRunThatGoesOnAndTheTitleShowsFromTheStart() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "long", "echo PROGRESS=1/2\nexec sleep 60\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let waiting = try WaitingSubmit(agent: agent, identifier: "local.long", extra: ["--title", "Exporting Holidays"])
        try agent.waitForLog("run r000001 of local.long started")
        try waiting.waitForOutput("r000001 Exporting Holidays")
        waiting.interrupt()
        let result = try waiting.finish()
        #expect(result.stdout.contains("still running as r000001: agentctl cancel r000001"), "\(result.stdout)")
        #expect(result.stdout.contains("r000001 Exporting Holidays"), "\(result.stdout)")
        #expect(!result.stdout.contains("r000001 local.long"), "the title, not the identifier")
        #expect(try agent.ctl("cancel", "r000001").status == 0, "the run went on")
    }

    /// Issue 28 item 2: a follower the agent dropped (it fell behind: stopped with Ctrl-Z while
    /// the plugin wrote) once exited 5 for a run that ended `success`. It now subscribes again
    /// and finds the run's end in history.
    @Test func aDroppedFollowerStillReportsTheRunsOwnResult() throws {
        let sandbox = try Sandbox()
        let go = sandbox.root + "/go"
        // 2,000 status lines of 600 bytes, a millisecond or more apart (so one read, one event each),
        // once the test has stopped the follower.
        try continuedJob(sandbox, "chatty", """
            echo PROGRESS=1/2
            while [ ! -e \(go) ]; do sleep 0.01; done
            pad=$(printf '%0600d' 0)
            i=0
            while [ $i -lt 2000 ]; do echo "STATUS=$i $pad"; i=$((i + 1)); sleep 0.001; done
            echo PROGRESS=2/2
            """)
        let agent = try AgentProcess(sandbox: sandbox)
        let waiting = try WaitingSubmit(agent: agent, identifier: "local.chatty")
        try waiting.waitForOutput("r000001 local.chatty")
        waiting.suspend()
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        try agent.waitForLog("run r000001 of local.chatty ended: success", timeout: 60)
        waiting.resume()
        let result = try waiting.finish()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("r000001 local.chatty: success"), "\(result.stdout)")
    }
}

/// `agentctl submit ID --wait` running in the background while the test acts.
final class WaitingSubmit {
    private let process = Process()
    private let output = Pipe()
    private let exited = DispatchSemaphore(value: 0)
    /// Output read by `waitForOutput` before `finish`.
    private var early = Data()

    init(agent: AgentProcess, identifier: String, extra: [String] = []) throws {
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        process.executableURL = URL(fileURLWithPath: Binaries.agentctl)
        process.arguments = ["--socket", agent.sandbox.socketPath, "submit", identifier, "--wait"] + extra
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Waits until its output so far contains `text` (with a deadline), reading the pipe as it
    /// fills; what was read is kept for `finish`.
    func waitForOutput(_ text: String, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let handle = output.fileHandleForReading
        while !String(decoding: early, as: UTF8.self).contains(text) {
            guard Date() < deadline else {
                Issue.record("agentctl submit --wait did not print \"\(text)\" within \(timeout) s")
                throw POSIXError(.ETIMEDOUT)
            }
            let chunk = handle.availableData  // blocks until something is written
            if chunk.isEmpty { break }
            early.append(chunk)
        }
    }

    /// Ctrl-Z and `fg`: stopped, it reads nothing.
    func suspend() { kill(process.processIdentifier, SIGSTOP) }
    func resume() { kill(process.processIdentifier, SIGCONT) }

    /// Ctrl-C, as a person at the terminal would.
    func interrupt() {
        kill(process.processIdentifier, SIGINT)
    }

    /// Waits for it to exit (it must, within the deadline) and returns what it said.
    func finish(timeout: Double = 30) throws -> CommandResult {
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            Issue.record("agentctl submit --wait did not return within \(timeout) s")
        }
        process.waitUntilExit()
        let text = String(decoding: early + output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return CommandResult(status: process.terminationStatus, stdout: text, stderr: "")
    }
}

/// A continued run starts with the title and subtitle it was submitted with (`AGENTD_TITLE`,
/// `AGENTD_SUBTITLE`): what `BGContinuedProcessingTask.title` and `subtitle` start from.
@Suite struct SubmittedTitleTests {
    @Test func aContinuedRunIsGivenTheTitleAndSubtitleItWasSubmittedWith() throws {
        let sandbox = try Sandbox()
        let path = try sandbox.script("titled", """
            echo "title=${AGENTD_TITLE-unset} subtitle=${AGENTD_SUBTITLE-unset}"
            """)
        try sandbox.write("jobs.d/titled.job", "[Job]\nIdentifier=local.titled\nKind=continued\nExec=\(path)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let titled = try agent.ctl("submit", "local.titled", "--title", "Exporting Holidays", "--subtitle", "0 of 3", "--wait")
        #expect(titled.status == 0, "\(titled.stderr)")
        let untitled = try agent.ctl("submit", "local.titled", "--wait")
        #expect(untitled.status == 0, "\(untitled.stderr)")
        let seen = agent.logLines.filter { $0.contains("] title=") }
        #expect(seen.count == 2, "\(seen)")
        #expect(seen.first?.hasSuffix("] title=Exporting Holidays subtitle=0 of 3") == true, "\(seen)")
        #expect(seen.last?.hasSuffix("] title=unset subtitle=unset") == true, "\(seen)")
    }
}

/// agentctl sends `submit --wait`'s subscription and submission in one write: an agent that
/// refuses the subscription (one older than the event stream) still takes the submission, and
/// agentctl says so instead of leaving a run nobody knows about.
@Suite struct SubmitWaitPipeliningTests {
    @Test func anAgentWithoutTheEventStreamIsNamedAndTheSubmissionItTookIsToo() throws {
        let sandbox = try Sandbox()
        let agent = try TwoAnswerAgent(path: sandbox.root + "/old.sock", answers: [
            #"{"error":{"code":"bad-request","message":"malformed request: expected one JSON object per line"},"ok":false}"#,
            #"{"message":"submitted local.fine as request 4: started run r000009","ok":true,"requestID":4,"runID":"r000009"}"#,
        ])
        let result = try runCommand(Binaries.agentctl, ["--socket", agent.path, "submit", "local.fine", "--wait"])
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.contains("has no event stream"), "\(result.stderr)")
        #expect(result.stderr.contains("taken all the same (submitted local.fine as request 4: started run r000009)"),
                "\(result.stderr)")
        let lines = agent.received()
        #expect(lines.count == 2 && lines[0].contains(#""command":"subscribe""#) && lines[1].contains(#""command":"submit""#),
                "\(lines)")
    }
}

/// A listening Unix socket that takes one connection, reads as many request lines as it has
/// answers, then writes the answers and closes: an agent from before a protocol change.
private final class TwoAnswerAgent: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let lock = NSLock()
    private var lines: [String] = []
    private let done = DispatchSemaphore(value: 0)

    init(path: String, answers: [String]) throws {
        self.path = path
        listener = cshim_unix_listen(path, 1)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        let fd = listener
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 10_000) == 1 else { return }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var received: [String] = []
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while received.count < answers.count, read(client, &byte, 1) == 1 {
                if byte == 0x0A {
                    received.append(String(decoding: line, as: UTF8.self))
                    line = []
                } else {
                    line.append(byte)
                }
            }
            lock.withLock { lines = received }
            let reply = answers.map { $0 + "\n" }.joined()
            _ = reply.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) }
        }
    }

    /// The request lines agentctl sent, once the exchange is over (within 10 s).
    func received() -> [String] {
        _ = done.wait(timeout: .now() + 10)
        return lock.withLock { lines }
    }

    deinit {
        close(listener)
        unlink(path)
    }
}
