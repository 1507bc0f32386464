// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

struct ManifestTests {
    func parse(_ text: String) -> ConfigParseResult<Manifest> {
        Manifest.parse(Array(text.utf8), path: "manifests.d/com.example.photos.manifest")
    }

    @Test func aLineThatIsNoAssignmentHidesNoOtherError() {
        let result = parse("[Manifest]\nPermittedIdentifiers=com.example.*\nBackgroundModes refresh\nDailyBudget=lots\n")
        #expect(result.value == nil)
        #expect(result.diagnostics.filter { $0.severity == .error }.map(\.line) == [3, 4])
    }

    @Test func readsPermittedIdentifiersAndBackgroundModes() throws {
        let manifest = try #require(parse("""
            [Manifest]
            PermittedIdentifiers=com.example.photos.refresh com.example.photos.cleanup
            PermittedIdentifiers=com.example.photos.export.*
            BackgroundModes=refresh processing
            BackgroundModes=continued
            """).value)
        #expect(manifest.permitted == [
            .exact(id("com.example.photos.refresh")), .exact(id("com.example.photos.cleanup")),
            .prefix("com.example.photos.export."),
        ])
        #expect(manifest.backgroundModes == [.refresh, .processing, .continued])
        #expect(manifest.permits(id("com.example.photos.export.album1"), kind: .continued))
        #expect(manifest.permits(id("com.example.photos.refresh"), kind: .refresh))
        #expect(!manifest.permits(id("com.example.photos.other"), kind: .refresh))
    }

    @Test func aManifestMaySetItsOwnDailyBudget() throws {
        let own = try #require(parse("[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=refresh\nDailyBudget=12\n").value)
        #expect(own.dailyBudget == 12)
        let byDefault = try #require(parse("[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=refresh\n").value)
        #expect(byDefault.dailyBudget == nil)
        // An empty assignment resets it to agentd.conf's, as in systemd.
        let reset = try #require(parse("[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=refresh\nDailyBudget=3\nDailyBudget=\n").value)
        #expect(reset.dailyBudget == nil)
    }

    @Test func aBadDailyBudgetRejectsTheManifestWithFileAndLine() {
        for value in ["lots", "-1", "100001", "12 # a day"] {
            let result = parse("[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=refresh\nDailyBudget=\(value)\n")
            #expect(result.value == nil)
            #expect(printed(result.diagnostics) == [
                "manifests.d/com.example.photos.manifest:4: DailyBudget: \"\(value)\" is not a whole number from 0 to 100000, or infinity",
            ])
        }
    }

    @Test func aKindMissingFromBackgroundModesIsNotPermitted() throws {
        let manifest = try #require(parse("[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=refresh\n").value)
        #expect(manifest.permits(id("a.b"), kind: .refresh))
        #expect(!manifest.permits(id("a.b"), kind: .processing))
        #expect(manifest.permitsIdentifier(id("a.b")))
    }

    @Test func emptyListsAreWarnings() throws {
        let result = parse("[Manifest]\nPermittedIdentifiers=a.b\nPermittedIdentifiers=\n")
        let manifest = try #require(result.value)
        #expect(manifest.permitted.isEmpty)
        #expect(printed(result.diagnostics) == [
            // An absent key at the section's line; an emptied one at the line that emptied it.
            "manifests.d/com.example.photos.manifest:1: warning: BackgroundModes= is empty, so no kind of job is permitted; list some of refresh, processing, continued",
            "manifests.d/com.example.photos.manifest:3: warning: PermittedIdentifiers= is empty, so this manifest permits nothing; list identifiers such as com.example.task or com.example.*",
        ])
    }

    @Test func unknownKeysAndSectionsAreWarnings() throws {
        let result = parse("[Manifest]\nPermittedIdentifier=a.b\nPermittedIdentifiers=a.b\nBackgroundModes=refresh\n[Extra]\nX=1\n")
        #expect(result.value != nil)
        #expect(printed(result.diagnostics) == [
            "manifests.d/com.example.photos.manifest:2: warning: PermittedIdentifier: unknown key in [Manifest], ignored (did you mean PermittedIdentifiers?)",
            "manifests.d/com.example.photos.manifest:5: warning: unknown section [Extra], ignored (a manifest has one [Manifest] section)",
        ])
    }
}

struct AgentSettingsTests {
    func parse(_ text: String, context: ConfigContext = privilegedContext) -> ConfigParseResult<AgentSettings> {
        AgentSettings.parse(Array(text.utf8), path: "agentd.conf", context: context, facts: FakeFacts())
    }

    @Test func aLineThatIsNoAssignmentHidesNoOtherError() {
        let result = parse("[Agent]\nMaxConcurrent 4\nDailyBudget=lots\n")
        #expect(result.value == nil)
        #expect(result.diagnostics.filter { $0.severity == .error }.map(\.line) == [2, 3])
    }

    @Test func anEmptyFileMeansTheDefaults() throws {
        #expect(try #require(parse("").value) == .defaults)
        let defaults = AgentSettings.defaults
        #expect(defaults.defaultUser == nil)
        #expect(defaults.maxConcurrent == 4)
        #expect(defaults.dailyBudget == 48)
        #expect(defaults.triggerSpacing == .seconds(900))
        #expect(defaults.catchUpSpread == .seconds(300))
        #expect(defaults.batteryLow == 20)
        #expect(defaults.batteryCritical == 5)
        #expect(defaults.deny.isEmpty)
        #expect(defaults.thermalFairMargin == 10)
        #expect(defaults.thermalCriticalMargin == 5)
    }

    @Test func readsEveryKey() throws {
        let result = parse("""
            [Agent]
            DefaultUser=photos
            MaxConcurrent=2
            DailyBudget=0
            TriggerSpacing=1h
            CatchUpSpread=0
            BatteryLow=30%
            BatteryCritical=10
            Deny=com.evil.* com.example.noisy
            [Thermal]
            FairMargin=15
            CriticalMargin=3
            """)
        #expect(result.diagnostics.isEmpty)
        let settings = try #require(result.value)
        #expect(settings == AgentSettings(
            defaultUser: "photos", maxConcurrent: 2, dailyBudget: 0, triggerSpacing: .seconds(3600),
            catchUpSpread: .zero, batteryLow: 30, batteryCritical: 10,
            deny: [.prefix("com.evil."), .exact(id("com.example.noisy"))],
            thermalFairMargin: 15, thermalCriticalMargin: 3))
        #expect(settings.denies(id("com.evil.x")))
        #expect(!settings.denies(id("com.example.fine")))
    }

    @Test func defaultUserIsResolvedByPrivilege() {
        #expect(AgentSettings.defaults.resolvedDefaultUser(privileged: true, agentUserName: "root") == "nobody")
        #expect(AgentSettings.defaults.resolvedDefaultUser(privileged: false, agentUserName: "alice") == "alice")
        let photos = AgentSettings(defaultUser: "photos")
        #expect(photos.resolvedDefaultUser(privileged: true, agentUserName: "root") == "photos")
    }

    @Test func unprivilegedAgentIgnoresAnotherDefaultUserWithAWarning() throws {
        let result = parse("[Agent]\nDefaultUser=nobody\n", context: unprivilegedContext)
        #expect(try #require(result.value).defaultUser == nil)
        #expect(printed(result.diagnostics) == [
            "agentd.conf:2: warning: DefaultUser: ignored: the agent runs unprivileged, so every job runs as alice",
        ])
        #expect(parse("[Agent]\nDefaultUser=alice\n", context: unprivilegedContext).value?.defaultUser == "alice")
    }

    @Test func percentagesWithOrWithoutTheSign() {
        #expect(parse("[Agent]\nBatteryLow=20%\n").value?.batteryLow == 20)
        #expect(parse("[Agent]\nBatteryLow=25\n").value?.batteryLow == 25)
        #expect(parse("[Agent]\nBatteryLow=100%\nBatteryCritical=0%\n").value?.batteryCritical == 0)
    }

    @Test func unknownSectionIsAWarning() {
        let result = parse("[Agent]\nMaxConcurrent=3\n[Scheduler]\nFoo=1\n")
        #expect(result.value?.maxConcurrent == 3)
        #expect(printed(result.diagnostics) == [
            "agentd.conf:3: warning: unknown section [Scheduler], ignored (agentd.conf has [Agent] and [Thermal])",
        ])
    }
}

struct DropInScriptTests {
    func parse(_ text: String, name: String = "backup", context: ConfigContext = privilegedContext,
               facts: FakeFacts = FakeFacts()) -> ConfigParseResult<JobDefinition>
    {
        DropInScript.parse(Array(text.utf8), path: "jobs.d/\(name)", context: context, facts: facts)
    }

    @Test func aScriptWithoutHeadersIsADailyProcessingJob() throws {
        let job = try #require(parse("#!/bin/sh\ntar czf /var/backups/etc.tgz /etc\n").value)
        #expect(job.identifier == id("local.backup"))
        #expect(job.kind == .processing)
        #expect(job.interval == .seconds(86_400))
        #expect(job.exec == ["/etc/agentd/jobs.d/backup"])
        // run-parts imposes no limit, and cron scripts sleep on their own (apt-compat up to 30 min).
        #expect(job.maxRuntime == nil)
        #expect(job.isDropInScript)
    }

    @Test func readsSettingsFromAgentdHeaderLines() throws {
        let result = parse("""
            #!/bin/sh
            # Back up /etc.
            # agentd: Kind=refresh Interval=1h
            #agentd: RequiresNetwork=yes Environment="GREETING=hello world" Environment=B=2
              # agentd: Retry="fixed 5min" Resources=gpu
            echo done
            """)
        #expect(result.diagnostics.isEmpty)
        let job = try #require(result.value)
        #expect(job.kind == .refresh)
        #expect(job.interval == .seconds(3600))
        #expect(job.maxRuntime == .seconds(30))
        #expect(job.requiresNetwork)
        #expect(job.environment == [EnvironmentVariable(name: "GREETING", value: "hello world"),
                                    EnvironmentVariable(name: "B", value: "2")])
        #expect(job.retry == RetryPolicy(shape: .fixed(.seconds(300))))
        #expect(job.resources == ["gpu"])
    }

    @Test func onlyTheFirstTwentyLinesAreSearched() throws {
        let text = "#!/bin/sh\n" + String(repeating: "true\n", count: 19) + "# agentd: Kind=refresh\n"
        #expect(try #require(parse(text).value).kind == .processing)
        let inside = "#!/bin/sh\n" + String(repeating: "true\n", count: 18) + "# agentd: Kind=refresh\n"
        #expect(try #require(parse(inside).value).kind == .refresh)
    }

    @Test func binaryExecutablesAreFine() throws {
        let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0xFF, 0xFE, 0x0A, 0x00, 0x00]
        let result = DropInScript.parse(elf, path: "jobs.d/tool", context: privilegedContext, facts: FakeFacts())
        #expect(result.value?.identifier == id("local.tool"))
    }

    @Test func unknownHeaderKeysAreWarnings() {
        let result = parse("#!/bin/sh\n# agentd: Intervall=1h\n")
        #expect(result.value != nil)
        #expect(printed(result.diagnostics) == [
            "jobs.d/backup:2: warning: Intervall: unknown key in the # agentd: header, ignored (did you mean Interval?)",
        ])
    }

    @Test func theScriptItselfIsCheckedAsAPlugin() {
        var facts = FakeFacts()
        facts.plugins["/etc/agentd/jobs.d/backup"] = .present(FileFacts(ownerUID: 0, mode: 0o100755), executable: false)
        #expect(printed(parse("#!/bin/sh\n", facts: facts).errors) == [
            "jobs.d/backup: is not executable; run chmod +x /etc/agentd/jobs.d/backup",
        ])
    }

    @Test func aDropInWithoutExecuteBitsIsSkippedWithAWarning() {
        let result = ConfigCheck.check(source("jobs.d/README", "notes\n"), context: privilegedContext, facts: FakeFacts())
        #expect(result.value == .ignored(reason: "not executable, so not a drop-in job script"))
        #expect(printed(result.diagnostics) == [
            "jobs.d/README: warning: not executable, so not a drop-in job script; run chmod +x /etc/agentd/jobs.d/README "
                + "to run it as local.README, or name a job definition NAME.job",
        ])
    }
}
