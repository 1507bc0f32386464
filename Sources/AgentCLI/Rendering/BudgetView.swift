// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `status`'s budget block: one line per manifest with used/limit of today's discretionary
/// launches, and when they refill (the coming local midnight, the same for every manifest, so
/// said once). The manifest column is never cut.
enum BudgetView {
    static func lines(_ budgets: [BudgetFigures], paused: Bool, clock: DisplayClock, style: Style) -> [String] {
        let refills = budgets.map { $0.refillsAt.map { clock.format($0, "%H:%M") } }
        let shared = Set(refills).count == 1 ? refills.first ?? nil : nil
        var header = "budget:   per manifest, used/limit today"
        if let shared { header += "; refills \(shared)" }
        if paused { header += "; PAUSED (agentctl resume)" }
        var lines = [header]
        let nameWidth = budgets.map { $0.manifest.count }.max() ?? 0
        let counts = budgets.map { "\($0.spentLaunchCount)/" + ($0.isUnlimited ? "unlimited" : "\($0.dailyLaunchCount)") }
        let countWidth = counts.map(\.count).max() ?? 0
        for (index, budget) in budgets.enumerated() {
            let name = budget.manifest + String(repeating: " ", count: nameWidth - budget.manifest.count)
            let count = String(repeating: " ", count: countWidth - counts[index].count) + counts[index]
            let spent = budget.leftLaunchCount == 0
            var line = "  \(name)  \(style.apply(spent ? .warning : nil, count))"
            if spent { line += "  " + style.warning("spent") }
            if shared == nil, let refill = refills[index] { line += (spent ? ", " : "  ") + "refills \(refill)" }
            lines.append(line)
        }
        return lines
    }
}
