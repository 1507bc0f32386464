// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
@testable import AgentCLI

private func run(_ id: String, _ start: Int64, _ stop: String) -> RunRecord {
    RunRecord(runID: "r", identifier: id, kind: .refresh, reason: "scheduled", startedAt: start * 1000,
              endedAt: start * 1000 + 500, stopReason: Reported(text: stop), exitStatus: 0, signal: nil, progress: nil,
              title: nil, logTail: [])
}

@Test func statsCountRunsSuccessesTheMedianGapAndFreshDaysOverSevenDays() {
    let now: Int64 = 10 * 86_400
    let records = [
        run("local.a", now - 9 * 86_400, "success"),   // outside the window: only the previous success
        run("local.a", now - 3 * 86_400, "success"),   // 6 days after the previous: not fresh
        run("local.a", now - 2 * 86_400 - 3600, "failure(exit 1)"),
        run("local.a", now - 2 * 86_400, "success"),   // within 24 h of the previous success: fresh
        run("local.a", now - 1 * 86_400, "success"),   // fresh
    ]
    let rows = RunStatistics.compute(records, now: now)
    #expect(rows.count == 1)
    #expect(rows[0].runs == 4)
    #expect(rows[0].successes == 3)
    #expect(rows[0].medianGapSeconds == 82_800)  // gaps 1 h, 23 h, 24 h
    #expect(rows[0].freshDayShare == 2.0 / 7)
}

@Test func aJobYoungerThanTheWindowIsJudgedOnTheDaysSinceItsFirstRun() {
    let now: Int64 = 30 * 86_400
    // Installed 5 h ago, a failure first, then a success every hour: fresh on its one day.
    let hourly = [run("local.new", now - 5 * 3600, "failure(exit 1)")]
        + (1...4).map { run("local.new", now - Int64(5 - $0) * 3600, "success") }
    #expect(RunStatistics.compute(hourly, now: now).first?.freshDayShare == 1)
    // First run 2 days and 1 h ago, a success every 12 h since: the partial third day holds
    // only the first success, which has none before it.
    let twiceDaily = stride(from: now - 2 * 86_400 - 3600, to: now, by: 43_200).map { run("local.b", $0, "success") }
    #expect(RunStatistics.compute(twiceDaily, now: now).first?.freshDayShare == 2.0 / 3)
    // A single success: nothing yet within 24 h of a previous one.
    #expect(RunStatistics.compute([run("local.c", now - 60, "success")], now: now).first?.freshDayShare == 0)
}
