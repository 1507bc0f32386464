// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
@testable import AgentDaemon
import Testing

/// The in-memory history behind the per-job metrics gives the figures the store would.
struct SuccessHistoryTests {
    let day: Int64 = 86_400

    @Test func nothingIsRecordedBeforeTheSeedAndTheSeedIsTheStores() {
        var history = SuccessHistory()
        history.recordSuccess("local.a", startedAtMs: 1_000_000, endedAtMs: 1_001_000)
        #expect(history.lastSuccess(of: "local.a") == nil)
        history.seed(lastSuccesses: ["local.a": 5_000], successStarts: ["local.a": [1_000, 4_000]])
        #expect(history.lastSuccess(of: "local.a") == 5_000)
        #expect(history.runRate(of: "local.a", now: 10) == 1.0 / 7)
    }

    @Test func successesAfterTheSeedMatchTheStatsFigure() {
        let now = 30 * day
        var history = SuccessHistory()
        history.seed(lastSuccesses: [:], successStarts: [:])
        // Every 12 h over the last 3 days, ended out of order (a long run started earlier ends later).
        var starts = stride(from: now - 3 * day + 3600, to: now, by: 43_200).map { Int64($0) }
        starts.swapAt(1, 2)
        for start in starts { history.recordSuccess("local.a", startedAtMs: start * 1000, endedAtMs: start * 1000 + 500) }
        #expect(history.runRate(of: "local.a", now: now) == FreshDays.share(successStarts: starts.sorted(), now: now))
        #expect(history.runRate(of: "local.a", now: now) == 3.0 / 7)
        #expect(history.lastSuccess(of: "local.a") == (starts.last ?? 0) * 1000 + 500)
        // Ten days later, all of it has left the window.
        #expect(history.runRate(of: "local.a", now: now + 10 * day) == 0)
        #expect(history.runRate(of: "local.other", now: now) == 0)
    }
}
