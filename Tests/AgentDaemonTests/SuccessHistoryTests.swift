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

/// The metric agrees with `stats` for a job younger than the window: its first run, read from the
/// store at the seed or seen since, bounds the days it is judged on.
struct SuccessHistoryFirstRunTests {
    let day: Int64 = 86_400

    @Test func aNewJobsRunRateCountsOnlyTheDaysSinceItsFirstRun() {
        let now = 30 * day
        var history = SuccessHistory()
        history.seed(lastSuccesses: [:], successStarts: ["local.seeded": [(now - 3 * day) * 1000, (now - 2 * day) * 1000]],
                     firstRuns: ["local.seeded": (now - 3 * day - 600) * 1000])
        // First run 3 days and 10 min ago: days 0–3 count, day 2 is fresh.
        #expect(history.runRate(of: "local.seeded", now: now) == 1.0 / 4)
        // A job new since the seed: its failed first run counts as its start.
        history.recordRun("local.new", startedAtMs: (now - 7200) * 1000)
        for start in [now - 3600, now - 1800] {
            history.recordRun("local.new", startedAtMs: start * 1000)
            history.recordSuccess("local.new", startedAtMs: start * 1000, endedAtMs: start * 1000 + 500)
        }
        #expect(history.runRate(of: "local.new", now: now) == 1)
        // Unknown first run: the whole window, as before.
        #expect(FreshDays.share(successStarts: [now - 3600, now - 1800], now: now) == 1.0 / 7)
    }
}
