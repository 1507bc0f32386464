// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private func makeRun(kind: JobKind = .processing) -> LiveRun {
    LiveRun(id: RunID(1), identifier: Identifier(rawValue: "local.a")!, kind: kind, reason: .simulated,
            startedAt: 1000, settings: .init(maxRuntime: .seconds(600), progressTimeout: nil, gracePeriod: .seconds(5)),
            checkpoint: "batch-1")
}

@Test func directivesUpdateWhatStatusShows() {
    var run = makeRun()
    #expect(run.apply(PluginDirective.parse(Array("PROGRESS=3/4".utf8))) == .progressed)
    _ = run.apply(PluginDirective.parse(Array("TITLE=Exporting".utf8)))
    _ = run.apply(PluginDirective.parse(Array("SUBTITLE=3 of 4".utf8)))
    _ = run.apply(PluginDirective.parse(Array("STATUS=busy".utf8)))
    #expect(run.progress?.fraction == 0.75)
    #expect(run.title == "Exporting")
    #expect(run.subtitle == "3 of 4")
    #expect(run.statusText == "busy")
}

@Test func aCheckpointIsReportedForPersistenceAndKept() {
    var run = makeRun()
    #expect(run.checkpoint == "batch-1")
    #expect(run.apply(PluginDirective.parse(Array("CHECKPOINT=batch-2".utf8))) == .checkpointed("batch-2"))
    #expect(run.checkpoint == "batch-2")
}

@Test func invalidDirectivesAreCountedAndChangeNothing() {
    var run = makeRun()
    _ = run.apply(PluginDirective.parse(Array("PROGRESS=1/2".utf8)))
    for bad in ["PROGRESS=7/3", "PROGRESS=1/0", "PROGRESS=-1/5", "PROGRESS=150%"] {
        _ = run.apply(PluginDirective.parse(Array(bad.utf8)))
    }
    let oversized = "CHECKPOINT=" + String(repeating: "x", count: 1025)
    _ = run.apply(PluginDirective.parse(Array(oversized.utf8)))
    #expect(run.invalidDirectives == 5)
    #expect(run.progress?.fraction == 0.5)
    #expect(run.checkpoint == "batch-1")
}

@Test func otherLinesGoToTheBoundedLogTail() {
    var run = makeRun()
    for index in 0..<500 { _ = run.apply(.log("line \(index)")) }
    run.appendLog("from stderr")
    #expect(run.logTail.lines.count == 50)
    #expect(run.logTail.lines.last == "from stderr")
}

/// The stop rules themselves are RunLifecycleTests'; a live run carries its lifecycle and shows
/// its deadline from it.
@Test func aLiveRunCarriesItsLifecycleAndShowsItsDeadline() {
    var run = makeRun()
    #expect(run.deadline == nil, "not started yet")
    #expect(run.handle(.started(wallClock: SchedulerTime(seconds: 1000)), now: .seconds(5)) == [.setDeadline(1600)])
    #expect(run.deadline == 1600)
    #expect(run.lifecycle.nextDeadline == .seconds(605))
    #expect(run.handle(.expire(.simulated), now: .seconds(6)) == [.signal(15), .signal(18)])
    #expect(run.lifecycle.stop == .expired(.simulated))
}
