// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// run-parts' rules for drop-in scripts (DESIGN §3) and job files with errors that stay
/// visible (issue 13), in the pure core.
struct DropInRunPartsRulesTests {
    private func check(_ path: String, _ text: String = "#!/bin/sh\n", facts: FileFacts = rootScript,
                       context: ConfigContext = privilegedContext) -> ConfigParseResult<ParsedConfig>
    {
        ConfigCheck.check(source(path, text, facts: facts), context: context, facts: FakeFacts())
    }

    private func job(_ result: ConfigParseResult<ParsedConfig>) -> JobDefinition? {
        if case .job(let definition)? = result.value { return definition }
        return nil
    }

    @Test func onlyRunPartsNamesAreDropInScripts() {
        for name in ["backup", "apt-compat", "man_db", "A9"] {
            #expect(DropInScript.hasRunPartsName(name), "\(name)")
        }
        for name in ["backup.disabled", "x.bak", "x.orig", "x.save", "x.sh", "my backup", ""] {
            #expect(!DropInScript.hasRunPartsName(name), "\(name)")
        }
    }

    @Test func anExecutableRenamedCopyIsIgnoredWithAWarningNamingTheRule() {
        let result = check("jobs.d/backup.disabled")
        #expect(result.value == .ignored(reason: "not a run-parts name"))
        #expect(result.diagnostics.count == 1)
        let warning = result.diagnostics.first
        #expect(warning?.severity == .warning)
        #expect(warning?.description.hasPrefix("jobs.d/backup.disabled: warning: ignored") == true)
        #expect(warning?.message.contains(DropInScript.nameRule) == true)
    }

    @Test func aNonExecutableBadlyNamedFileIsIgnoredSilently() {
        let result = check("jobs.d/notes.txt", facts: rootFile)
        #expect(result.value == .ignored(reason: "not a run-parts name"))
        #expect(result.diagnostics.isEmpty)
    }

    @Test func aRootOwnedDropInRunsAsRootAndMayNameAnyUser() {
        #expect(job(check("jobs.d/daily"))?.user == "root")
        #expect(job(check("jobs.d/daily", "#!/bin/sh\n# agentd: User=nobody\n"))?.user == "nobody")
    }

    @Test func aDropInOwnedByAUserRunsAsThatUserAndOnlyAsThatUser() {
        let alices = FileFacts(ownerUID: 1000, mode: 0o100755)
        #expect(job(check("jobs.d/sync", facts: alices))?.user == "alice")
        #expect(job(check("jobs.d/sync", "#!/bin/sh\n# agentd: User=alice\n", facts: alices))?.user == "alice")
        let climbing = check("jobs.d/sync", "#!/bin/sh\n# agentd: User=root\n", facts: alices)
        #expect(climbing.value == nil)
        #expect(printed(climbing.errors).contains { $0.hasPrefix("jobs.d/sync:2: User: \"root\" cannot be used") })
    }

    @Test func aDropInWritableByOthersIsRefusedWhoeverOwnsIt() {
        let result = check("jobs.d/sync", facts: FileFacts(ownerUID: 1000, mode: 0o100775))
        #expect(result.value == nil)
        #expect(printed(result.errors).contains { $0.contains("is group-writable; run chmod g-w") })
    }

    @Test func anUnprivilegedAgentRunsItsDropInsAsItself() {
        let result = check("jobs.d/sync", facts: FileFacts(ownerUID: 1000, mode: 0o100755),
                           context: unprivilegedContext)
        #expect(job(result)?.user == nil)
    }

    @Test func aDropInHasNoRuntimeLimitAsRunPartsAJobFileTenMinutes() {
        #expect(job(check("jobs.d/daily")) != nil)
        #expect(job(check("jobs.d/daily"))?.maxRuntime == nil)
        #expect(job(check("jobs.d/quick", "#!/bin/sh\n# agentd: Kind=refresh\n"))?.maxRuntime == .seconds(30))
        #expect(parseJob(jobText()).value?.maxRuntime == .seconds(600))
    }

    @Test func aRefusedJobFileIsListedWhereItsFirstErrorIs() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        let facts = FakeFacts()
        _ = registry.update(source("manifests.d/l.manifest", localManifest), facts: facts)
        _ = registry.update(source("jobs.d/b.job", jobText("local.b", "Interval=1x\n")), facts: facts)
        _ = registry.update(source("jobs.d/g.job", "junk\n"), facts: facts)
        let refused = registry.jobFilesWithErrors
        #expect(refused.map(\.sourcePath) == ["jobs.d/b.job", "jobs.d/g.job"])
        #expect(refused.first?.identifier == id("local.b"))
        #expect(refused.first?.stateText == "error (jobs.d/b.job:4)")
        #expect(refused.last?.identifier == nil)
        #expect(registry.jobFileWithErrors(id("local.b"))?.explanation.hasPrefix("jobs.d/b.job has errors (jobs.d/b.job:4: Interval:") == true)
        #expect(registry.pluginsNamedInErrors == ["/usr/lib/agentd/plugins/test"])

        _ = registry.update(source("jobs.d/b.job", jobText("local.b")), facts: facts)
        #expect(registry.jobFilesWithErrors.map(\.sourcePath) == ["jobs.d/g.job"])
        _ = registry.remove(relativePath: "jobs.d/g.job", facts: facts)
        #expect(registry.jobFilesWithErrors.isEmpty)
    }

    @Test func theKeptVersionNoteIsNeitherAnErrorNorAWarning() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        let facts = FakeFacts()
        _ = registry.update(source("manifests.d/l.manifest", localManifest), facts: facts)
        _ = registry.update(source("jobs.d/b.job", jobText("local.b")), facts: facts)
        _ = registry.update(source("jobs.d/b.job", jobText("local.b", "Interval=1x\n")), facts: facts)
        #expect(registry.diagnostics.map(\.severity).sorted { $0.rawValue < $1.rawValue } == [.error, .note])
        // Listed as it was: its good version is in force.
        #expect(registry.jobFilesWithErrors.isEmpty)
        #expect(registry.job(id("local.b"))?.state == .registered)
    }
}
