// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Glibc
import Testing
@testable import AgentCLI

/// `submit --wait` and `run --wait` on one connection: the answer waits for the state's sync, the
/// run's events do not, so its start, first progress and even its end often come before the
/// answer names the run.
@Suite struct RunWaitFollowerTests {
    /// What a follower given a context printed on standard output and on standard error: each
    /// descriptor is a pipe, read once the follower is done with it.
    private func printedBoth(_ body: (CommandContext) throws -> Void) throws -> (out: String, err: String) {
        var outEnds: [Int32] = [0, 0]
        var errEnds: [Int32] = [0, 0]
        #expect(pipe(&outEnds) == 0)
        #expect(pipe(&errEnds) == 0)
        defer { close(outEnds[0]); close(errEnds[0]) }
        var context = Fixture.context()
        context.outputDescriptor = outEnds[1]
        context.errorDescriptor = errEnds[1]
        try body(context)
        close(outEnds[1])
        close(errEnds[1])
        func drain(_ fd: Int32) -> String {
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &bytes, bytes.count)
            return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
        }
        return (drain(outEnds[0]), drain(errEnds[0]))
    }

    /// What a follower printed on standard output.
    private func printed(_ body: (CommandContext) throws -> Void) throws -> String {
        try printedBoth(body).out
    }

    @Test func progressThatCameBeforeTheAnswerIsShownOnceTheAnswerNamesTheRun() throws {
        let text = try printed { (context: CommandContext) throws in
            var follower = RunWait.Follower(id: "local.long", context: context)
            var started = AgentEvent(sequence: 3, time: Fixture.nowMs, type: .runStarted, identifier: "local.long", runID: "r000001")
            started.requestID = 1
            started.title = "Exporting Holidays"
            var progress = AgentEvent(sequence: 4, time: Fixture.nowMs, type: .runProgress, identifier: "local.long", runID: "r000001")
            progress.progress = 0.5
            #expect(try follower.take(.event(started, raw: [])) == nil)
            #expect(try follower.take(.event(progress, raw: [])) == nil)
            #expect(try follower.take(.response(.success(.done(message: "submitted local.long as request 1: started run r000001",
                                                               runID: "r000001", requestID: 1)))) == nil)
        }
        #expect(text == "submitted local.long as request 1: started run r000001\n"
                + "r000001 Exporting Holidays [####################--------------------] 50%\n", "\(text)")
    }

    /// `run` answers with the run it started; a short run may have ended before that answer.
    @Test func aManualRunThatEndedBeforeTheAnswerEndsTheWaitWithItsStatus() throws {
        var status: Int32?
        let (text, hint) = try printedBoth { (context: CommandContext) throws in
            var follower = RunWait.Follower(id: "local.backup", command: .run, context: context)
            let started = AgentEvent(sequence: 3, time: Fixture.nowMs, type: .runStarted, identifier: "local.backup", runID: "r000007")
            var ended = AgentEvent(sequence: 4, time: Fixture.nowMs, type: .runEnded, identifier: "local.backup", runID: "r000007")
            ended.stopReason = Reported(StopReason.failure(exitStatus: 3))
            #expect(try follower.take(.event(started, raw: [])) == nil)
            #expect(try follower.take(.event(ended, raw: [])) == nil)
            status = try follower.take(.response(.success(.done(message: "started run r000007 of local.backup", runID: "r000007"))))
        }
        #expect(status == 1)
        #expect(text
                == "started run r000007 of local.backup\nr000007 local.backup: failure(exit 3)\n")
        // Where to look next goes to standard error, so that standard output stays one line a run.
        #expect(hint == "agentctl logs r000007 shows its output\n")
    }

    /// An earlier run of the same job ending before the answer is not ours.
    @Test func anotherRunEndingBeforeTheAnswerDoesNotEndTheWait() throws {
        var context = Fixture.context()
        context.outputDescriptor = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(context.outputDescriptor) }
        var follower = RunWait.Follower(id: "local.backup", command: .run, context: context)
        var ended = AgentEvent(sequence: 4, time: Fixture.nowMs, type: .runEnded, identifier: "local.backup", runID: "r000006")
        ended.stopReason = Reported(StopReason.success)
        #expect(try follower.take(.event(ended, raw: [])) == nil)
        #expect(try follower.take(.response(.success(.done(message: "started run r000007 of local.backup", runID: "r000007")))) == nil)
        #expect(follower.runID == "r000007")
    }
}

/// Only a run whose plugin ran and did not succeed points at its output.
@Test func onlyARunThatRanAndFailedPointsAtItsLogs() {
    for stop in ["failure(exit 3)", "expired(max-runtime)", "crashed(signal 11)"] {
        #expect(RunWait.ranAndFailed(stop), "\(stop)")
    }
    for stop in ["success", "cancelled", "agent-restart", "spawn-failed(execve: No such file or directory)",
                 "skipped(ConditionPathExists=/flag)"] {
        #expect(!RunWait.ranAndFailed(stop), "\(stop)")
    }
}
