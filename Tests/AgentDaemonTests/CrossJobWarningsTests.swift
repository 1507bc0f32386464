// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Testing
@testable import AgentDaemon

/// `status`'s cross-job warnings, kept up to date batch by batch, say what the checks over every
/// job say, after every kind of change: jobs added, changed, removed, duplicated, chained to
/// jobs that come and go, and manifests and agentd.conf changing the budgets.
struct CrossJobWarningsTests {
    private static let file = FileFacts(ownerUID: 0, mode: 0o100644)

    private static func source(_ path: String, _ text: String) -> ConfigSource {
        ConfigSource(relativePath: path, bytes: Array(text.utf8), facts: file)
    }

    /// A random job file: an interval that may need more than the budget, chain lines to
    /// identifiers that may or may not exist.
    private static func job(_ name: Int, _ random: inout SplitMix64) -> ConfigSource {
        func target(_ r: inout SplitMix64) -> String { "local.j\(Int.random(in: 0..<12, using: &r))" }
        var text = "[Job]\nIdentifier=local.j\(name)\nKind=processing\nExec=/usr/lib/agentd/plugins/x\n"
        text += "Interval=\([5, 30, 60, 1_440][Int.random(in: 0..<4, using: &random)])min\n"
        if Bool.random(using: &random) { text += "OnSuccess=\(target(&random))\n" }
        if Bool.random(using: &random) { text += "OnFailure=\(target(&random))\n" }
        // Now and then a second file for the same identifier: a duplicate, which one wins by path.
        let file = Int.random(in: 0..<6, using: &random) == 0 ? "jobs.d/z\(name).job" : "jobs.d/j\(name).job"
        return source(file, text)
    }

    @Test func keptUpToDateTheyAreWhatTheFullChecksSay() {
        var random = SplitMix64(seed: 20_261_207)
        let facts = ScriptFacts()
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        var warnings = CrossJobWarnings()
        var sawBudget = false, sawChain = false, sawCycle = false
        for step in 0..<300 {
            let change: RegistryChange
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                let budget = ["48", "100", "infinity", "10"][Int.random(in: 0..<4, using: &random)]
                change = registry.update(Self.source("manifests.d/local.manifest",
                    "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=refresh processing continued\nDailyBudget=\(budget)\n"),
                    facts: facts)
            case 1:
                change = registry.update(Self.source("agentd.conf",
                    "[Agent]\nDailyBudget=\(Int.random(in: 20...400, using: &random))\n"), facts: facts)
            case 2, 3:
                let path = Int.random(in: 0..<2, using: &random) == 0 ? "jobs.d/j\(Int.random(in: 0..<12, using: &random)).job"
                    : "jobs.d/z\(Int.random(in: 0..<12, using: &random)).job"
                change = registry.remove(relativePath: path, facts: facts)
            default:
                change = registry.update(Self.job(Int.random(in: 0..<12, using: &random), &random), facts: facts)
            }
            warnings.apply([change], registry: registry)
            // status asks only now and then: the warnings must hold after several batches too.
            guard step % 3 == 0 else { continue }
            let expected = CrossJobWarnings.all(registry)
            #expect(warnings.warnings(registry) == expected, "after step \(step)")
            sawBudget = sawBudget || expected.contains { $0.message.contains("launches a day") }
            sawChain = sawChain || expected.contains { $0.message.contains("no job agentd runs") }
            sawCycle = sawCycle || expected.contains { $0.message.contains("cycle") }
        }
        #expect(sawBudget && sawChain && sawCycle, "the sequence exercised every warning")
    }
}
