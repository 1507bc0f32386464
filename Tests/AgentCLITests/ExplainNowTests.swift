// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Testing
@testable import AgentCLI

/// `explain`'s `now:` line says what holds the job now: its wait, else its live run, else why
/// it cannot run, else that nothing is pending — never a bare "not waiting".
struct ExplainNowTests {
    static let now = Double(Fixture.now)

    /// The line for an agent that says no kind (an older one): the kind of the last run.
    static func line(pending: [PendingSummary] = [], runs: [RunRecord] = [], timeline: [TimelineRecord] = []) -> String {
        line(pending: pending, runs: runs, timeline: timeline, kind: runs.first?.kind)
    }

    static func line(pending: [PendingSummary] = [], runs: [RunRecord] = [], timeline: [TimelineRecord] = [],
                     kind: JobKind?, chainedBy: [String] = []) -> String {
        SchedulingCommands.nowLine(pending: pending, runs: runs, timeline: timeline, kind: kind, chainedBy: chainedBy,
                                   context: Fixture.context())
    }

    @Test func aWaitingJobSaysWhatItWaitsFor() {
        let waiting = PendingSummary(identifier: "local.feed", kind: .refresh, waitingFor: "external power")
        let ended = Array(Fixture.runs.dropFirst())
        #expect(Self.line(pending: [waiting], runs: ended) == "  now: waiting: external power")
    }

    /// A request held by a condition after its earliest begin has passed: the wait, as pending
    /// says it, with no earliest in the past.
    @Test func aWaitPastItsEarliestBeginNamesNoEarliest() {
        let held = PendingSummary(identifier: "local.feed", kind: .processing, waitingFor: "idle CPU",
                                  earliestBegin: Self.now - 600, reason: .known(.condition))
        #expect(Self.line(pending: [held]) == "  now: waiting: idle CPU")
        let ahead = PendingSummary(identifier: "local.feed", kind: .processing, waitingFor: "idle CPU",
                                   earliestBegin: Self.now + 3600, reason: .known(.condition))
        #expect(Self.line(pending: [ahead]).hasPrefix("  now: waiting: idle CPU (earliest "))
    }

    @Test func aRunningJobNamesItsRun() {
        #expect(Self.line(runs: Fixture.runs) == "  now: running (r000044, started just now)")
        let held = PendingSummary(identifier: "local.feed", kind: .refresh, waitingFor: "running")
        #expect(Self.line(pending: [held], runs: Fixture.runs) == "  now: running (r000044, started just now)")
    }

    /// A live run's job whose next run is not due yet says when it is.
    @Test func aRunningJobSaysWhatItsNextRunWaitsFor() {
        let next = PendingSummary(identifier: "local.feed", kind: .refresh, waitingFor: "interval (earliest Mon 23:56)")
        #expect(Self.line(pending: [next], runs: Fixture.runs)
            == "  now: running (r000044, started just now); next run waiting: interval (earliest Mon 23:56)")
    }

    @Test func aJobThatCannotRunSaysWhy() {
        let refused = TimelineRecord.notRegistered("not-permitted: no manifest permits other.x", at: Self.now)
        #expect(Self.line(timeline: [refused]) == "  now: not registered: not-permitted: no manifest permits other.x")
    }

    /// How it would run follows its kind: refresh and processing jobs are never submitted,
    /// continued ones only are.
    @Test func anIdleJobSaysNothingIsPendingAndWhatWouldStartIt() {
        var ended = Array(Fixture.runs.dropFirst())
        ended = ended.map { var run = $0; run.kind = .processing; return run }
        #expect(Self.line(runs: ended) == "  now: not due: nothing pending (it runs when requested, triggered or run)")
        ended = ended.map { var run = $0; run.kind = .continued; return run }
        #expect(Self.line(runs: ended) == "  now: not due: nothing pending (it runs when submitted)")
        #expect(Self.line() == "  now: not due: nothing pending (it runs when requested, triggered or run; a continued job when submitted)")
    }

    /// The agent says the kind of a job that never ran, and which jobs chain it.
    @Test func aJobThatNeverRanSaysWhatStartsItByItsKindAndItsChains() {
        #expect(Self.line(kind: .processing) == "  now: not due: nothing pending (it runs when requested, triggered or run)")
        #expect(Self.line(kind: .continued) == "  now: not due: nothing pending (it runs when submitted)")
        #expect(Self.line(kind: .refresh, chainedBy: ["local.fetch"])
            == "  now: not due: nothing pending (it runs when requested, triggered or run, and when local.fetch succeeds (OnSuccess=))")
        #expect(Self.line(kind: .refresh, chainedBy: ["local.a", "local.b", "local.c"])
            == "  now: not due: nothing pending (it runs when requested, triggered or run, and when local.a, local.b or local.c succeeds (OnSuccess=))")
    }
}
