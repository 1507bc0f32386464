// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import AgentCore

/// Real Debian 12 scheduled jobs (Tests/ConvertCorpus, packages and versions in SOURCES), each
/// converted and checked with the real job parser: no error, every warning an expected one.
struct ConvertCorpusTests {
    static let corpus = TestFiles.repository + "/Tests/ConvertCorpus"

    /// The warnings a converted job may carry while the run code does not apply those keys.
    static let expectedWarnings = ["is not enforced yet", "is not expanded yet"]

    static func parse(_ job: ConvertedJob) -> ConfigParseResult<JobDefinition> {
        JobDefinition.parse(Array(job.text.utf8), path: "jobs.d/" + job.fileName, context: privilegedContext,
                            facts: CorpusFacts())
    }

    /// Every absolute program is installed, every user exists: the machine the files came from.
    struct CorpusFacts: SystemFacts {
        func plugin(at path: String) -> PluginStatus { .present(FileFacts(ownerUID: 0, mode: 0o100755), executable: true) }
        func userExists(_ name: String) -> Bool { true }
    }

    static func unit(_ name: String, instance: String? = nil) -> UnitFile? {
        guard var text = TestFiles.read(corpus + "/systemd/" + name) else { return nil }
        if let instance { text = text.replacingOccurrences(of: "%i", with: instance) }
        return UnitFileParser.parse(Array(text.utf8), path: name, expectedSection: "[Timer]").value
    }

    static func convertedTimers() -> [ConvertedJob] {
        TestFiles.list(corpus + "/systemd").filter { $0.hasSuffix(".timer") }.compactMap { name in
            let base = String(name.dropLast(6))
            let instance = base.hasSuffix("@") ? "md0" : nil
            guard let timer = unit(name, instance: instance) else { return nil }
            let serviceName = timer.entries(in: "Timer").last { $0.key == "Unit" }?.value
                ?? (instance != nil ? base + ".service" : base + ".service")
            guard let service = unit(serviceName, instance: instance) else { return nil }
            return TimerConverter.convert(timer: timer, service: service, name: base + (instance ?? ""),
                                          sources: [name], resolve: { "/usr/bin/" + $0 })
        }
    }

    @Test func theCorpusHoldsAtLeastFifteenPackages() throws {
        let sources = try #require(TestFiles.read(Self.corpus + "/SOURCES"))
        #expect(sources.split(separator: "\n").filter { !$0.hasPrefix("#") }.count >= 15)
    }

    @Test func everyDebianTimerConvertsToAJobTheParserAccepts() {
        let jobs = Self.convertedTimers()
        #expect(jobs.count >= 18)
        for job in jobs { Self.expectAccepted(job) }
    }

    @Test func aServiceWithoutUserConvertsToUserRoot() throws {
        let job = try #require(Self.convertedTimers().first { $0.fileName == "dpkg-db-backup.job" })
        #expect(job.keys.contains { $0 == ("User", "root") })
        #expect(job.keys.contains { $0 == ("MaxRuntime", "infinity") })
    }

    @Test func everyCronDFileConvertsAndGuardedLinesAreLeftOut() {
        for name in TestFiles.list(Self.corpus + "/cron.d") {
            let text = TestFiles.read(Self.corpus + "/cron.d/" + name) ?? ""
            let result = CronConverter.convert(text, name: name, source: "/etc/cron.d/" + name, withUser: true)
            #expect(result.errors.isEmpty, "\(name): \(result.errors)")
            for job in result.jobs { Self.expectAccepted(job) }
            #expect(!result.jobs.isEmpty || !result.notes.isEmpty, "\(name) gave nothing and said nothing")
        }
    }

    @Test func everyRunPartsDirectoryConvertsOneJobPerScript() {
        for directory in ["cron.daily", "cron.weekly", "cron.monthly"] {
            let scripts = TestFiles.list(Self.corpus + "/" + directory).map { name in
                RunPartsConverter.Script(name: name, isExecutable: true, owner: "root",
                                         text: TestFiles.read(Self.corpus + "/" + directory + "/" + name) ?? "")
            }
            let result = RunPartsConverter.convert(directory: "/etc/" + directory, scripts: scripts)
            #expect(result.errors.isEmpty)
            #expect(result.jobs.count + result.notes.count == scripts.count, "\(directory)")
            for job in result.jobs { Self.expectAccepted(job) }
        }
    }

    static func expectAccepted(_ job: ConvertedJob, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = parse(job)
        #expect(result.value != nil, "\(job.fileName): \(printed(result.diagnostics))\n\(job.text)", sourceLocation: sourceLocation)
        let unexpected = result.diagnostics.filter { diagnostic in
            diagnostic.severity == .warning && !expectedWarnings.contains { diagnostic.message.contains($0) }
        }
        #expect(unexpected.isEmpty, "\(job.fileName): \(printed(unexpected))", sourceLocation: sourceLocation)
    }
}
