// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing
@testable import AgentCLI

/// `status`'s budget block reads as a table: manifests in a column, used/limit aligned on the
/// slash whatever the limit's width, and what follows (`spent`) in a column of its own.
struct BudgetViewTests {
    @Test func countsAlignOnTheSlashAndSpentLinesUp() {
        let refill: Int64 = 1_764_547_200
        let budgets = [
            BudgetFigures(manifest: "com.example.demo", dailyLaunchCount: 48, spentLaunchCount: 2, leftLaunchCount: 46, refillsAt: refill),
            BudgetFigures(manifest: "com.example.big", dailyLaunchCount: 12, spentLaunchCount: 12, leftLaunchCount: 0, refillsAt: refill),
            BudgetFigures(manifest: "local", dailyLaunchCount: Int.max, spentLaunchCount: 1, leftLaunchCount: Int.max, refillsAt: refill),
        ]
        let lines = BudgetView.lines(budgets, paused: false, clock: .fixed(milliseconds: refill * 1000 - 3_600_000), style: .plain)
        #expect(lines == [
            "budget:   per manifest, used/limit today; refills 00:00",
            "  com.example.demo   2/48",
            "  com.example.big   12/12         spent",
            "  local              1/unlimited",
        ])
    }
}
