// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
@testable import AgentCLI

/// `explain`'s `now:` line says what holds the job now: its wait, else its live run, else why
/// it cannot run, else that nothing is pending — never a bare "not waiting".
struct ExplainNowTests {
    static let now = Double(Fixture.now)

    static func line(pending: [PendingSummary] = [], runs: [RunRecord] = [], timeline: [TimelineRecord] = []) -> String {
        SchedulingCommands.nowLine(pending: pending, runs: runs, timeline: timeline, context: Fixture.context())
    }

    @Test func aWaitingJobSaysWhatItWaitsFor() {
        let waiting = PendingSummary(identifier: "local.feed", kind: .refresh, waitingFor: "external power")
        #expect(Self.line(pending: [waiting], runs: Fixture.runs) == "  now: waiting: external power")
    }

    @Test func aRunningJobNamesItsRun() {
        #expect(Self.line(runs: Fixture.runs) == "  now: running (r000044, started just now)")
    }

    @Test func aJobThatCannotRunSaysWhy() {
        let refused = TimelineRecord.notRegistered("not-permitted: no manifest permits other.x", at: Self.now)
        #expect(Self.line(timeline: [refused]) == "  now: not registered: not-permitted: no manifest permits other.x")
    }

    @Test func anIdleJobSaysNothingIsPending() {
        let ended = Array(Fixture.runs.dropFirst())
        #expect(Self.line(runs: ended) == "  now: not due: nothing pending (it runs when requested, triggered, submitted or run)")
    }
}
