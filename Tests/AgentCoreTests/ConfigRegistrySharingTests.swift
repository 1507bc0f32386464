// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// The registry stores each distinct `Exec=` line once (issue 17: memory per job).
struct ConfigRegistrySharingTests {
    let facts = FakeFacts()

    private func execStorage(_ registry: ConfigRegistry, _ identifier: String) throws -> UnsafeRawPointer? {
        let job = try #require(registry.job(id(identifier)))
        return job.definition.exec.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func jobsWithTheSameExecLineShareOneStoredCopy() throws {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        _ = registry.update(source("jobs.d/b.job", jobText("com.example.b")), facts: facts)
        #expect(registry.job(id("com.example.a"))?.definition.exec == registry.job(id("com.example.b"))?.definition.exec)
        #expect(try execStorage(registry, "com.example.a") == execStorage(registry, "com.example.b"))
    }

    @Test func aJobWithAnotherExecLineKeepsItsOwn() throws {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        _ = registry.update(source("jobs.d/b.job", "[Job]\nIdentifier=com.example.b\nExec=/usr/lib/agentd/plugins/test --flag\n"), facts: facts)
        #expect(registry.job(id("com.example.b"))?.definition.exec == ["/usr/lib/agentd/plugins/test", "--flag"])
        #expect(try execStorage(registry, "com.example.a") != execStorage(registry, "com.example.b"))
    }

    @Test func thePoolForgetsLinesNoJobUsesAnyMore() {
        var pool = ExecLinePool()
        for index in 0..<100 { _ = pool.stored(equalTo: ["/bin/p\(index)"]) }
        pool.prune(keeping: [["/bin/p1"]], whenOver: 1)
        #expect(pool.stored(equalTo: ["/bin/p1"]) == ["/bin/p1"])
        #expect(pool.stored(equalTo: ["/bin/p2"]) == nil)
    }
}
