// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Cold start and reload cost. The contract: 10,000 job files well under 1 s (release build),
/// and a single-file reload that does not grow with the number of jobs loaded. Debug builds
/// are 10–20 times slower, so their bounds are loose; the release bounds are the contract:
/// `swift test -c release -Xswiftc -enable-testing --filter PerformanceTests`.
struct PerformanceTests {
    #if DEBUG
    static let coldStartBound: Duration = .seconds(15)
    static let manifestBound: Duration = .seconds(5)
    #else
    static let coldStartBound: Duration = .seconds(1)
    static let manifestBound: Duration = .milliseconds(500)
    #endif

    static func jobSource(_ index: Int) -> ConfigSource {
        let text = """
            # Generated job \(index)
            [Job]
            Identifier=com.example.bulk.job\(index)
            Kind=\(index % 3 == 0 ? "refresh" : "processing")
            Exec=/usr/lib/agentd/plugins/bulk --index \(index) "quoted argument"
            Interval=\(index % 24 + 1)h
            MaxRuntime=5min
            RequiresNetwork=yes
            Retry=exponential 30s 1h
            Environment=INDEX=\(index) MODE=bulk

            """
        return source("jobs.d/bulk-\(index).job", text)
    }

    @Test func coldStartOfTenThousandJobFiles() {
        let sources = (0..<10_000).map(Self.jobSource)
        let facts = FakeFacts()
        let clock = ContinuousClock()
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        let elapsed = clock.measure {
            _ = registry.update(source("manifests.d/bulk.manifest",
                "[Manifest]\nPermittedIdentifiers=com.example.bulk.*\nBackgroundModes=refresh processing\n"), facts: facts)
            for source in sources { _ = registry.update(source, facts: facts) }
        }
        #expect(registry.jobCount == 10_000)
        #expect(registry.diagnostics.isEmpty)
        print("cold start of 10,000 job files: \(elapsed)")
        #expect(elapsed < Self.coldStartBound)
    }

    @Test func manifestsArrivingAfterTheJobsStillCostLittle() {
        let sources = (0..<10_000).map(Self.jobSource)
        let facts = FakeFacts()
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        for source in sources { _ = registry.update(source, facts: facts) }
        #expect(registry.jobCount == 0)
        let clock = ContinuousClock()
        var change = RegistryChange()
        let elapsed = clock.measure {
            change = registry.update(source("manifests.d/bulk.manifest",
                "[Manifest]\nPermittedIdentifiers=com.example.bulk.*\nBackgroundModes=refresh processing\n"), facts: facts)
        }
        #expect(change.added.count == 10_000)
        #expect(registry.jobCount == 10_000)
        print("manifest permitting 10,000 loaded jobs: \(elapsed)")
        #expect(elapsed < Self.manifestBound)
        // A manifest for other identifiers touches none of them.
        let unrelated = clock.measure {
            change = registry.update(source("manifests.d/other.manifest",
                "[Manifest]\nPermittedIdentifiers=org.other.*\nBackgroundModes=refresh\n"), facts: facts)
        }
        #expect(change.added.isEmpty && change.removed.isEmpty)
        print("unrelated manifest with 10,000 jobs loaded: \(unrelated)")
        #expect(unrelated < .milliseconds(50))
    }

    @Test func singleFileReloadDoesNotDependOnTheNumberOfJobs() {
        let facts = FakeFacts()
        func reloadCost(loaded: Int) -> Duration {
            var registry = registryWithManifest()
            _ = registry.update(source("manifests.d/bulk.manifest",
                "[Manifest]\nPermittedIdentifiers=com.example.bulk.*\nBackgroundModes=refresh processing\n"), facts: facts)
            for index in 0..<loaded { _ = registry.update(Self.jobSource(index), facts: facts) }
            let edited = Self.jobSource(loaded / 2)
            let clock = ContinuousClock()
            return clock.measure {
                for _ in 0..<200 {
                    _ = registry.update(edited, facts: facts)
                    _ = registry.remove(relativePath: edited.relativePath, facts: facts)
                }
            } / 400
        }
        let small = reloadCost(loaded: 100)
        let large = reloadCost(loaded: 10_000)
        print("single-file reload: \(small) with 100 jobs, \(large) with 10,000 jobs")
        #expect(large < .milliseconds(2))
        // Generous: timing noise, not growth, is what this tolerates.
        #expect(large < small * 10 + .microseconds(200))
    }
}
