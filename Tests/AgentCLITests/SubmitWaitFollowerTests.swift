// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Glibc
import Testing
@testable import AgentCLI

/// `submit --wait` on one connection: the answer waits for the state's sync, the run's events do
/// not, so its start and first progress often come before the answer names the run.
@Suite struct SubmitWaitFollowerTests {
    @Test func progressThatCameBeforeTheAnswerIsShownOnceTheAnswerNamesTheRun() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var context = Fixture.context()
        context.outputDescriptor = ends[1]
        var follower = SubmitWait.Follower(id: "local.long", context: context)
        var started = AgentEvent(sequence: 3, time: Fixture.nowMs, type: .runStarted, identifier: "local.long", runID: "r000001")
        started.requestID = 1
        started.title = "Exporting Holidays"
        var progress = AgentEvent(sequence: 4, time: Fixture.nowMs, type: .runProgress, identifier: "local.long", runID: "r000001")
        progress.progress = 0.5
        #expect(try follower.take(.event(started, raw: [])) == nil)
        #expect(try follower.take(.event(progress, raw: [])) == nil)
        #expect(try follower.take(.response(.success(.done(message: "submitted local.long as request 1: started run r000001",
                                                           runID: "r000001", requestID: 1)))) == nil)
        close(ends[1])
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(ends[0], &bytes, bytes.count)
        let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
        #expect(text == "submitted local.long as request 1: started run r000001\n"
                + "r000001 Exporting Holidays [####################--------------------] 50%\n", "\(text)")
    }
}
