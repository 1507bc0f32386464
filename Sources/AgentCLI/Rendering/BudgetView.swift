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
        // Aligned on the slash (`12/48` above ` 1/unlimited`); what follows, in a column.
        let usedWidth = budgets.map { "\($0.spentLaunchCount)".count }.max() ?? 0
        let counts = budgets.map { budget in
            let used = "\(budget.spentLaunchCount)"
            return String(repeating: " ", count: usedWidth - used.count) + used + "/"
                + (budget.isUnlimited ? "unlimited" : "\(budget.dailyLaunchCount)")
        }
        let countWidth = counts.map(\.count).max() ?? 0
        for ((budget, count), refill) in zip(zip(budgets, counts), refills) {
            let name = budget.manifest + String(repeating: " ", count: nameWidth - budget.manifest.count)
            let spent = budget.leftLaunchCount == 0
            var after: [String] = spent ? [style.warning("spent")] : []
            if shared == nil, let refill { after.append("refills \(refill)") }
            var line = "  \(name)  \(style.apply(spent ? .warning : nil, count))"
            if !after.isEmpty {
                line += String(repeating: " ", count: countWidth - count.count) + "  " + after.joined(separator: ", ")
            }
            lines.append(line)
        }
        return lines
    }
}
