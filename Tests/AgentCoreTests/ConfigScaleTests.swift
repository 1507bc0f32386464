// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Ten thousand job files, and manifests that come before or after them. How long a cold start
/// and a reload take is bench/run.py's (`cold`, and `reload` with 1,000 and 10,000 jobs loaded,
/// which shows that a reload does not grow with the jobs loaded), not a unit test's.
struct ConfigScaleTests {
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

    @Test func tenThousandJobFilesLoadWithoutADiagnostic() {
        let sources = (0..<10_000).map(Self.jobSource)
        let facts = FakeFacts()
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/bulk.manifest",
            "[Manifest]\nPermittedIdentifiers=com.example.bulk.*\nBackgroundModes=refresh processing\n"), facts: facts)
        for source in sources { _ = registry.update(source, facts: facts) }
        #expect(registry.jobCount == 10_000)
        #expect(registry.diagnostics.isEmpty)
    }

    @Test func aManifestArrivingAfterTheJobsRegistersThemAndAnUnrelatedOneTouchesNone() {
        let sources = (0..<10_000).map(Self.jobSource)
        let facts = FakeFacts()
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        for source in sources { _ = registry.update(source, facts: facts) }
        #expect(registry.jobCount == 0)
        var change = registry.update(source("manifests.d/bulk.manifest",
            "[Manifest]\nPermittedIdentifiers=com.example.bulk.*\nBackgroundModes=refresh processing\n"), facts: facts)
        #expect(change.added.count == 10_000)
        #expect(registry.jobCount == 10_000)
        change = registry.update(source("manifests.d/other.manifest",
            "[Manifest]\nPermittedIdentifiers=org.other.*\nBackgroundModes=refresh\n"), facts: facts)
        #expect(change.added.isEmpty && change.removed.isEmpty)
    }
}
