// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

struct ConfigRegistryTests {
    let facts = FakeFacts()

    @Test func aPermittedJobIsRegistered() throws {
        var registry = registryWithManifest()
        let change = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        #expect(change.added == [id("com.example.a")])
        #expect(change.diagnostics.isEmpty)
        #expect(registry.jobCount == 1)
        #expect(registry.manifestCount == 1)
        let job = try #require(registry.job(id("com.example.a")))
        #expect(job.state == .registered)
        #expect(job.sourcePath == "jobs.d/a.job")
    }

    @Test func aJobNoManifestPermitsIsKeptAsNotPermitted() throws {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        let change = registry.update(source("jobs.d/a.job", jobText("org.other.sync")), facts: facts)
        #expect(change.added.isEmpty)
        #expect(registry.jobCount == 0)
        let job = try #require(registry.allJobs.first)
        guard case .notPermitted(let reason) = job.state else {
            Issue.record("state is \(job.state)")
            return
        }
        #expect(reason == "not-permitted: no manifest permits org.other.sync; add it (or org.other.*) to "
            + "PermittedIdentifiers= of a manifest in manifests.d/, with processing in its BackgroundModes=")
        #expect(printed(registry.diagnostics) == ["jobs.d/a.job:2: Identifier: " + reason])
        #expect(printed(change.diagnostics) == ["jobs.d/a.job:2: Identifier: " + reason])
    }

    @Test func aKindMissingFromBackgroundModesIsNotPermitted() throws {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/x.manifest", "[Manifest]\nPermittedIdentifiers=com.example.*\nBackgroundModes=refresh\n"), facts: facts)
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a", kind: "processing")), facts: facts)
        #expect(registry.job(id("com.example.a"))?.state == .notPermitted(
            reason: "not-permitted: manifests.d/x.manifest permits com.example.a but not Kind=processing; "
                + "add processing to its BackgroundModes="))
        #expect(!registry.isPermitted(id("com.example.a"), kind: .processing))
        #expect(registry.isPermitted(id("com.example.a"), kind: .refresh))
    }

    @Test func addingAManifestRegistersTheJobsItPermits() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        _ = registry.update(source("jobs.d/b.job", jobText("org.other.b")), facts: facts)
        let change = registry.update(source("manifests.d/x.manifest", localManifest), facts: facts)
        #expect(change.added == [id("com.example.a")])
        #expect(change.permissionsChanged)
        #expect(registry.jobCount == 1)
        // The not-permitted diagnostic of the job that became permitted is gone.
        #expect(printed(registry.diagnostics).allSatisfy { $0.hasPrefix("jobs.d/b.job") })
    }

    @Test func removingTheManifestMakesItsJobsNotPermitted() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        _ = registry.update(source("jobs.d/l.job", jobText("local.l")), facts: facts)
        let change = registry.remove(relativePath: "manifests.d/local.manifest", facts: facts)
        #expect(change.removed == [id("com.example.a"), id("local.l")])
        #expect(registry.jobCount == 0)
        #expect(registry.manifestCount == 0)
        #expect(registry.allJobs.count == 2)
        #expect(registry.allJobs.allSatisfy {
            if case .notPermitted(let reason) = $0.state { return reason.hasPrefix("not-permitted:") }
            return false
        })
    }

    @Test func changingAManifestReevaluatesOnlyWhatChanged() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a", kind: "refresh")), facts: facts)
        _ = registry.update(source("jobs.d/p.job", jobText("com.example.p", kind: "processing")), facts: facts)
        let change = registry.update(source("manifests.d/local.manifest",
            "[Manifest]\nPermittedIdentifiers=local.* com.example.*\nBackgroundModes=refresh\n"), facts: facts)
        #expect(change.removed == [id("com.example.p")])
        #expect(change.added.isEmpty && change.updated.isEmpty)
        #expect(registry.job(id("com.example.a"))?.state == .registered)
    }

    @Test func identicalManifestRewriteChangesNothing() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        let change = registry.update(source("manifests.d/local.manifest", localManifest), facts: facts)
        #expect(change.isEmpty)
    }

    @Test func theLastGoodVersionStaysInForceWhenAFileBreaks() throws {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a", "Interval=1h\n")), facts: facts)
        let broken = registry.update(source("jobs.d/a.job", jobText("com.example.a", "Interval=1x\n")), facts: facts)
        #expect(broken.added.isEmpty && broken.removed.isEmpty && broken.updated.isEmpty)
        #expect(printed(broken.diagnostics) == [
            "jobs.d/a.job:4: Interval: \"1x\" is not a time span (examples: 30s, 5min, 12h, 1d)",
            "jobs.d/a.job: note: the last good version of this file stays in force until the errors are fixed",
        ])
        #expect(try #require(registry.job(id("com.example.a"))).definition.interval == .seconds(3600))
        #expect(registry.jobCount == 1)
        #expect(registry.diagnostics == broken.diagnostics)
        #expect(registry.failedPaths == ["jobs.d/a.job"])

        let fixed = registry.update(source("jobs.d/a.job", jobText("com.example.a", "Interval=2h\n")), facts: facts)
        #expect(fixed.updated == [id("com.example.a")])
        #expect(fixed.diagnostics.isEmpty)
        #expect(registry.diagnostics.isEmpty)
        #expect(registry.failedPaths.isEmpty)
        #expect(registry.job(id("com.example.a"))?.definition.interval == .seconds(7200))
    }

    @Test func aBrokenNewFileRegistersNothing() {
        var registry = registryWithManifest()
        let change = registry.update(source("jobs.d/a.job", "[Job\n"), facts: facts)
        #expect(change.added.isEmpty)
        #expect(printed(change.diagnostics) == ["jobs.d/a.job:1: section header \"[Job\" has no closing \"]\"; write [Job]"])
        #expect(registry.allJobs.isEmpty)
    }

    @Test func removingAFileRemovesItsJobAndItsDiagnostics() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        _ = registry.update(source("jobs.d/a.job", "garbage\n"), facts: facts)
        let change = registry.remove(relativePath: "jobs.d/a.job", facts: facts)
        #expect(change.removed == [id("com.example.a")])
        #expect(registry.allJobs.isEmpty)
        #expect(registry.diagnostics.isEmpty)
        #expect(registry.job(id("com.example.a")) == nil)
    }

    @Test func anUnreadableFileKeepsItsLastGoodVersionAndShowsTheError() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        let change = registry.recordUnreadable(relativePath: "jobs.d/a.job", message: "Too many levels of symbolic links")
        #expect(printed(change.diagnostics) == [
            "jobs.d/a.job: cannot be read: Too many levels of symbolic links",
            "jobs.d/a.job: note: the last good version of this file stays in force until the errors are fixed",
        ])
        #expect(registry.job(id("com.example.a"))?.state == .registered)
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        #expect(registry.diagnostics.isEmpty)
    }

    @Test func aRefusedFileKeepsItsLastGoodVersion() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        let change = registry.update(source("jobs.d/a.job", jobText("com.example.changed"),
                                            facts: FileFacts(ownerUID: 0, mode: 0o100666)), facts: facts)
        #expect(change.removed.isEmpty && change.added.isEmpty)
        #expect(printed(change.diagnostics).first == "jobs.d/a.job: is group- and world-writable; run chmod go-w /etc/agentd/jobs.d/a.job")
        #expect(registry.job(id("com.example.a"))?.state == .registered)
        #expect(registry.job(id("com.example.changed")) == nil)
    }

    @Test func duplicateIdentifiersTheSmallestPathWins() throws {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/b.job", jobText("com.example.x", "Interval=2h\n")), facts: facts)
        let change = registry.update(source("jobs.d/a.job", jobText("com.example.x", "Interval=1h\n")), facts: facts)
        #expect(change.updated == [id("com.example.x")])
        let duplicate = "jobs.d/b.job:2: Identifier: com.example.x is also defined by jobs.d/a.job, which wins "
            + "(the alphabetically first file); this file is ignored until one of them changes its identifier or goes away"
        #expect(printed(change.diagnostics) == [duplicate])
        #expect(registry.job(id("com.example.x"))?.sourcePath == "jobs.d/a.job")
        #expect(registry.jobCount == 1)
        #expect(registry.allJobs.map(\.state) == [.registered, .duplicate(ofPath: "jobs.d/a.job")])
        #expect(printed(registry.diagnostics) == [duplicate])

        // The other order gives the same outcome.
        var reversed = registryWithManifest()
        _ = reversed.update(source("jobs.d/a.job", jobText("com.example.x", "Interval=1h\n")), facts: facts)
        let second = reversed.update(source("jobs.d/b.job", jobText("com.example.x", "Interval=2h\n")), facts: facts)
        #expect(second.added.isEmpty && second.updated.isEmpty && second.removed.isEmpty)
        #expect(printed(second.diagnostics) == [duplicate])
        #expect(reversed.allJobs == registry.allJobs)

        // Removing the winner promotes the next file.
        let promoted = registry.remove(relativePath: "jobs.d/a.job", facts: facts)
        #expect(promoted.updated == [id("com.example.x")])
        let job = try #require(registry.job(id("com.example.x")))
        #expect(job.sourcePath == "jobs.d/b.job")
        #expect(job.definition.interval == .seconds(7200))
        #expect(registry.diagnostics.isEmpty)
    }

    @Test func aDropInAndAJobFileWithTheSameIdentifierAreDuplicates() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/backup.job", jobText("local.backup")), facts: facts)
        _ = registry.update(source("jobs.d/backup", "#!/bin/sh\n", facts: rootScript), facts: facts)
        #expect(registry.job(id("local.backup"))?.sourcePath == "jobs.d/backup")
        #expect(registry.allJobs.map(\.state) == [.registered, .duplicate(ofPath: "jobs.d/backup")])
    }

    @Test func renamingTheIdentifierInAFileMovesTheJob() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.old")), facts: facts)
        let change = registry.update(source("jobs.d/a.job", jobText("com.example.new")), facts: facts)
        #expect(change.added == [id("com.example.new")])
        #expect(change.removed == [id("com.example.old")])
        #expect(registry.jobCount == 1)
    }

    @Test func aFileThatMovesToAnIdentifierAlreadyTakenPromotesWhatItLeft() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.x")), facts: facts)
        _ = registry.update(source("jobs.d/b.job", jobText("com.example.x")), facts: facts)
        _ = registry.update(source("jobs.d/c.job", jobText("com.example.y")), facts: facts)
        // a.job switches to y: it wins y (a < c), and b.job is promoted for x.
        let change = registry.update(source("jobs.d/a.job", jobText("com.example.y")), facts: facts)
        #expect(change.updated == [id("com.example.x"), id("com.example.y")])
        #expect(registry.job(id("com.example.x"))?.sourcePath == "jobs.d/b.job")
        #expect(registry.job(id("com.example.y"))?.sourcePath == "jobs.d/a.job")
        #expect(registry.allJobs.map(\.sourcePath) == ["jobs.d/b.job", "jobs.d/a.job", "jobs.d/c.job"])
        #expect(printed(registry.diagnostics).count == 1)
        #expect(printed(registry.diagnostics)[0].hasPrefix("jobs.d/c.job:2: Identifier: com.example.y is also defined by jobs.d/a.job"))
    }

    @Test func dropInScriptsRunFromTheConfigDirectory() throws {
        var registry = ConfigRegistry(agentUID: 1000, agentUserName: "alice", privileged: false,
                                      configDirectory: "/home/alice/agentd/")
        #expect(registry.configDirectory == "/home/alice/agentd/")
        _ = registry.update(source("manifests.d/local.manifest", localManifest, facts: FileFacts(ownerUID: 1000, mode: 0o100644)), facts: facts)
        var facts = FakeFacts()
        facts.plugins["/home/alice/agentd/jobs.d/sync"] = .present(FileFacts(ownerUID: 1000, mode: 0o100755), executable: true)
        let change = registry.update(source("jobs.d/sync", "#!/bin/sh\n# agentd: Kind=refresh\n",
                                            facts: FileFacts(ownerUID: 1000, mode: 0o100755)), facts: facts)
        #expect(change.added == [id("local.sync")])
        let job = try #require(registry.job(id("local.sync")))
        #expect(job.definition.exec == ["/home/alice/agentd/jobs.d/sync"])
        #expect(job.definition.kind == .refresh)
    }

    @Test func chmodMinusXDisablesADropIn() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/backup", "#!/bin/sh\n", facts: rootScript), facts: facts)
        #expect(registry.jobCount == 1)
        let change = registry.update(source("jobs.d/backup", "#!/bin/sh\n", facts: rootFile), facts: facts)
        #expect(change.removed == [id("local.backup")])
        #expect(change.diagnostics.map(\.severity) == [.warning])
        #expect(registry.allJobs.isEmpty)
    }

    @Test func aDynamicIdentifierResolvesToTheLongestRegisteredJobItsManifestPermitsWithAWildcard() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/x.manifest",
                                   "[Manifest]\nPermittedIdentifiers=com.example.feed com.example.feed.* com.example.tidy\nBackgroundModes=refresh processing\n"),
                            facts: facts)
        _ = registry.update(source("jobs.d/feed.job", jobText("com.example.feed", kind: "refresh")), facts: facts)
        _ = registry.update(source("jobs.d/tidy.job", jobText("com.example.tidy", kind: "processing")), facts: facts)
        #expect(registry.job(accepting: id("com.example.feed"))?.identifier == id("com.example.feed"))
        #expect(registry.job(accepting: id("com.example.feed.news.today"))?.identifier == id("com.example.feed"))
        // No `.*` for com.example.tidy: its dynamic identifiers name no job.
        #expect(registry.job(accepting: id("com.example.tidy.now")) == nil)
        // Narrowed to continued work (a submission), the refresh job does not accept it.
        #expect(registry.job(accepting: id("com.example.feed.news")) { $0 == .continued } == nil)
    }

    @Test func settingsComeFromAgentdConfAndFallBackToDefaults() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        #expect(registry.settings == .defaults)
        let change = registry.update(source("agentd.conf", "[Agent]\nMaxConcurrent=2\nDeny=com.evil.*\n"), facts: facts)
        #expect(change.settingsChanged)
        #expect(registry.settings.maxConcurrent == 2)
        #expect(registry.isDenied(id("com.evil.miner")))
        #expect(!registry.isDenied(id("com.example.a")))

        let broken = registry.update(source("agentd.conf", "[Agent]\nMaxConcurrent=many\n"), facts: facts)
        #expect(!broken.settingsChanged)
        #expect(registry.settings.maxConcurrent == 2)
        #expect(printed(broken.diagnostics).contains("agentd.conf: note: the last good version of this file stays in force until the errors are fixed"))

        let removed = registry.remove(relativePath: "agentd.conf", facts: facts)
        #expect(removed.settingsChanged)
        #expect(registry.settings == .defaults)
        #expect(registry.diagnostics.isEmpty)
    }

    @Test func submissionsUnderAWildcardArePermitted() {
        let registry = registryWithManifest()
        #expect(registry.isPermitted(id("com.example.photos.export.album42"), kind: .continued))
        #expect(!registry.isPermitted(id("org.other.x"), kind: .continued))
        #expect(!registry.isPermitted(id("com.example"), kind: .continued))
        #expect(registry.permissionProblem(id("org.other.x"), kind: .refresh)?.hasPrefix("not-permitted: no manifest permits org.other.x") == true)
        #expect(registry.permissionProblem(id("local.x"), kind: .refresh) == nil)
    }

    @Test func failedFilesCanBeRevalidatedWhenThePluginAppears() {
        var registry = registryWithManifest()
        var facts = FakeFacts(pluginsPresentByDefault: false)
        let first = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        #expect(first.added.isEmpty)
        facts.plugins["/usr/lib/agentd/plugins/test"] = .present(FileFacts(ownerUID: 0, mode: 0o100755), executable: true)
        let change = registry.revalidateFailedFiles(facts: facts)
        #expect(change.added == [id("com.example.a")])
        #expect(registry.failedPaths.isEmpty)
        #expect(registry.diagnostics.isEmpty)
    }

    /// A drop-in script in error that is deleted stays as it was until its removal settles: the
    /// revalidation a plugin directory's change sets off (jobs.d is its plugin's directory) does
    /// not report the deleted script as a missing plugin for that second.
    @Test func aDeletedDropInScriptIsNotRevalidatedAsAMissingPlugin() {
        var registry = registryWithManifest()
        var facts = FakeFacts()
        let script = FileFacts(ownerUID: 0, mode: 0o100755)
        facts.plugins["/etc/agentd/jobs.d/broken"] = .present(script, executable: true)
        let broken = registry.update(source("jobs.d/broken", "#!/bin/sh\n# agentd: Interval=bogus\necho hi\n", facts: script),
                                     facts: facts)
        #expect(printed(broken.diagnostics).contains { $0.hasPrefix("jobs.d/broken:2: Interval") })
        let before = registry.diagnostics
        facts.plugins["/etc/agentd/jobs.d/broken"] = .missing
        let change = registry.revalidateFailedFiles(facts: facts)
        #expect(change.diagnostics.isEmpty)
        #expect(registry.diagnostics == before, "\(printed(registry.diagnostics))")
    }

    @Test func leftoversAndForeignFilesAreIgnored() {
        var registry = registryWithManifest()
        for path in ["jobs.d/a.job~", "jobs.d/.a.job.swp", "jobs.d/#a.job#", "jobs.d/a.job.dpkg-new", "README", "jobs.d/sub/a.job"] {
            #expect(registry.update(source(path, "garbage"), facts: facts).isEmpty, "\(path)")
            #expect(registry.recordUnreadable(relativePath: path, message: "x").isEmpty)
        }
        #expect(registry.diagnostics.isEmpty)
    }

    @Test func diagnosticsAreSortedByPathThenLine() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/b.job", jobText("com.example.b", "Interval=1x\nKind=x\n")), facts: facts)
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a", "Bogus=1\n")), facts: facts)
        _ = registry.update(source("agentd.conf", "[Agent]\nMaxConcurrent=0\n"), facts: facts)
        #expect(registry.diagnostics.map { "\($0.path):\($0.line ?? 0)" }
            == ["agentd.conf:2", "jobs.d/a.job:4", "jobs.d/b.job:4", "jobs.d/b.job:5"])
    }

    @Test func unprivilegedRegistryRefusesJobsForOtherUsers() {
        var registry = registryWithManifest(privileged: false)
        var facts = FakeFacts()
        facts.plugins["/usr/lib/agentd/plugins/test"] = .present(FileFacts(ownerUID: 0, mode: 0o100755), executable: true)
        let change = registry.update(source("jobs.d/a.job", jobText("com.example.a", "User=photos\n"),
                                            facts: FileFacts(ownerUID: 1000, mode: 0o100644)), facts: facts)
        #expect(change.added.isEmpty)
        #expect(printed(change.diagnostics).first?.contains("User: \"photos\" cannot be used") == true)
    }
}

struct ConfigRegistryEdgeTests {
    let facts = FakeFacts()

    @Test func rewritingAFileUnchangedReportsNothing() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        #expect(registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts).isEmpty)
        #expect(registry.update(source("agentd.conf", ""), facts: facts).isEmpty)
    }

    @Test func aBrokenManifestKeepsItsLastGoodPermissions() {
        var registry = registryWithManifest()
        _ = registry.update(source("jobs.d/a.job", jobText("com.example.a")), facts: facts)
        let change = registry.update(source("manifests.d/local.manifest", "[Manifest]\nPermittedIdentifiers=com.*.x\n"), facts: facts)
        #expect(change.removed.isEmpty && !change.permissionsChanged)
        #expect(registry.job(id("com.example.a"))?.state == .registered)
        #expect(registry.manifest(at: "manifests.d/local.manifest")?.permitted.count == 2)
        #expect(printed(registry.diagnostics) == [
            "manifests.d/local.manifest:2: PermittedIdentifiers: \"com.*.x\" is not an identifier pattern: * is allowed only once, as the final .* (e.g. com.example.*)",
            "manifests.d/local.manifest: note: the last good version of this file stays in force until the errors are fixed",
        ])
    }

    @Test func aManifestForASingleIdentifierPermitsOnlyThatOne() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/one.manifest", "[Manifest]\nPermittedIdentifiers=com.example.one\nBackgroundModes=processing\n"), facts: facts)
        _ = registry.update(source("jobs.d/one.job", jobText("com.example.one")), facts: facts)
        _ = registry.update(source("jobs.d/two.job", jobText("com.example.two")), facts: facts)
        #expect(registry.jobCount == 1)
        let change = registry.remove(relativePath: "manifests.d/one.manifest", facts: facts)
        #expect(change.removed == [id("com.example.one")])
    }

    @Test func twoManifestsPermittingTheSameJobBothCount() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/a.manifest", "[Manifest]\nPermittedIdentifiers=com.example.*\nBackgroundModes=refresh\n"), facts: facts)
        _ = registry.update(source("manifests.d/b.manifest", "[Manifest]\nPermittedIdentifiers=com.example.x\nBackgroundModes=processing\n"), facts: facts)
        _ = registry.update(source("jobs.d/x.job", jobText("com.example.x", kind: "processing")), facts: facts)
        #expect(registry.job(id("com.example.x"))?.state == .registered)
        let change = registry.remove(relativePath: "manifests.d/b.manifest", facts: facts)
        #expect(change.removed == [id("com.example.x")])
        #expect(registry.permissionProblem(id("com.example.x"), kind: .processing)
            == "not-permitted: manifests.d/a.manifest permits com.example.x but not Kind=processing; add processing to its BackgroundModes=")
    }

    @Test func pathsAreNormalised() {
        var registry = registryWithManifest()
        _ = registry.update(source("./jobs.d//a.job", jobText("com.example.a")), facts: facts)
        #expect(registry.job(id("com.example.a"))?.sourcePath == "jobs.d/a.job")
        #expect(registry.remove(relativePath: "jobs.d/a.job", facts: facts).removed == [id("com.example.a")])
        #expect(ConfigPath.normalized("../x") == nil)
        #expect(ConfigPath.normalized("/etc/agentd/x") == nil)
    }

    @Test func configCheckReportsWhatEachFileIs() {
        let check = { (path: String, text: String, facts: FileFacts) in
            ConfigCheck.check(source(path, text, facts: facts), context: privilegedContext, facts: FakeFacts()).value
        }
        #expect(check("agentd.conf", "", rootFile) == .agentSettings(.defaults))
        #expect(check("manifests.d/l.manifest", localManifest, rootFile)
            == .manifest(Manifest(permitted: [.prefix("local."), .prefix("com.example.")],
                                  backgroundModes: [.refresh, .processing, .continued])))
        #expect(check("jobs.d/t.job", jobText(), rootFile)
            == .job(JobDefinition(identifier: id("com.example.test"), exec: ["/usr/lib/agentd/plugins/test"])))
        // A root-owned drop-in runs as root, as /etc/cron.daily does.
        var tool = JobDefinition(identifier: id("local.tool"), exec: ["/etc/agentd/jobs.d/tool"], isDropInScript: true)
        tool.user = "root"
        #expect(check("jobs.d/tool", "#!/bin/sh\n", rootScript) == .job(tool))
        #expect(check("jobs.d/x.job~", "junk", rootFile) == .ignored(reason: "an editor or package leftover"))
    }
}
