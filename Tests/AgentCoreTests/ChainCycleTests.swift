// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore
import Testing

/// Issue 10 item 9: a job file whose `OnSuccess=` closes a cycle is refused at load, naming the
/// file, the line and the cycle; it is accepted once the cycle is broken elsewhere.
struct ChainCycleTests {
    func chainJob(_ name: String, to next: String?) -> String {
        "[Job]\nIdentifier=local.\(name)\nExec=/usr/lib/agentd/plugins/x\nKind=processing\n"
            + (next.map { "OnSuccess=local.\($0)\n" } ?? "")
    }

    @Test func theFileClosingACycleIsRefusedWithFileLineAndTheCycle() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", chainJob("a", to: "b")), facts: FakeFacts())
        let change = registry.update(source("jobs.d/b.job", chainJob("b", to: "a")), facts: FakeFacts())
        #expect(change.added.isEmpty)
        #expect(printed(change.diagnostics).contains {
            $0.hasPrefix("jobs.d/b.job:5: OnSuccess= forms a cycle: local.b → local.a → local.b")
        }, "\(printed(change.diagnostics))")
        #expect(registry.job(id("local.b")) == nil)
        #expect(registry.job(id("local.a"))?.state == .registered)
    }

    @Test func aLongerCycleIsFoundToo() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", chainJob("a", to: "b")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/b.job", chainJob("b", to: "c")), facts: FakeFacts())
        let change = registry.update(source("jobs.d/c.job", chainJob("c", to: "a")), facts: FakeFacts())
        #expect(printed(change.diagnostics).contains {
            $0.contains("jobs.d/c.job:5: OnSuccess= forms a cycle: local.c → local.a → local.b → local.c")
        })
    }

    @Test func breakingTheCycleElsewhereAcceptsTheRefusedFile() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", chainJob("a", to: "b")), facts: FakeFacts())
        _ = registry.update(source("jobs.d/b.job", chainJob("b", to: "a")), facts: FakeFacts())
        let change = registry.update(source("jobs.d/a.job", chainJob("a", to: nil)), facts: FakeFacts())
        #expect(change.added == [id("local.b")])
        #expect(registry.diagnostics.isEmpty, "\(printed(registry.diagnostics))")
    }

    @Test func aChainThatEndsIsFine() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", chainJob("a", to: "b")), facts: FakeFacts())
        let change = registry.update(source("jobs.d/b.job", chainJob("b", to: "c")), facts: FakeFacts())
        #expect(change.added == [id("local.b")])
    }
}
