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

    /// Where systemd is not init (no /run/systemd/system), Debian's guarded cron lines are what
    /// runs: each is converted, its test kept, and the job says so. Under systemd each is left out.
    @Test func withoutSystemdTheGuardedCronLinesAreConverted() throws {
        for name in ["e2scrub_all", "certbot"] {
            let text = try #require(TestFiles.read(Self.corpus + "/cron.d/" + name))
            let lines = text.split(separator: "\n").filter { $0.contains("/run/systemd/system") }
            #expect(!lines.isEmpty)
            let underSystemd = CronConverter.convert(text, name: name, source: "/etc/cron.d/" + name, withUser: true)
            let converted = underSystemd.jobs.filter { !$0.fileName.hasPrefix("mail-report") }
            #expect(converted.allSatisfy { !$0.text.contains("/run/systemd/system") }, "\(name)")
            #expect(underSystemd.notes.filter { $0.contains("left out: it runs only on a machine without systemd") }.count
                    == lines.count, "\(name)")
            let without = CronConverter.convert(text, name: name, source: "/etc/cron.d/" + name, withUser: true,
                                                underSystemd: false)
            let guarded = without.jobs.filter { $0.keys.contains { $0.0 == "Exec" && $0.1.contains("/run/systemd/system") } }
            #expect(guarded.count == lines.count, "\(name): \(without.notes)")
            #expect(guarded.allSatisfy { $0.text.contains("systemd is not its init") }, "\(name)")
            #expect(!without.notes.contains { $0.contains("left out") }, "\(name)")
            for job in without.jobs { Self.expectAccepted(job) }
        }
    }

    @Test func withoutSystemdTheScriptsThatTestForItAreConverted() {
        let scripts = TestFiles.list(Self.corpus + "/cron.daily").map { name in
            RunPartsConverter.Script(name: name, isExecutable: true, owner: "root",
                                     text: TestFiles.read(Self.corpus + "/cron.daily/" + name) ?? "")
        }
        let testing = Set(scripts.filter { $0.text.contains("/run/systemd/system") }.map(\.name))
        #expect(testing.isSuperset(of: ["logrotate", "dpkg", "man-db", "apt-compat"]))
        let under = RunPartsConverter.convert(directory: "/etc/cron.daily", scripts: scripts, runner: nil)
        #expect(under.jobs.allSatisfy { !testing.contains(String($0.fileName.dropLast(4))) })
        let without = RunPartsConverter.convert(directory: "/etc/cron.daily", scripts: scripts, runner: nil,
                                                underSystemd: false)
        let converted = Set(without.jobs.map { String($0.fileName.dropLast(4)) })
        #expect(converted.isSuperset(of: testing))
        for job in without.jobs {
            let name = String(job.fileName.dropLast(4))
            #expect(job.text.contains("systemd is not its init") == testing.contains(name), "\(name)")
            Self.expectAccepted(job)
        }
    }

    @Test func everyRunPartsDirectoryConvertsOneJobPerScript() {
        for directory in ["cron.daily", "cron.weekly", "cron.monthly"] {
            let scripts = TestFiles.list(Self.corpus + "/" + directory).map { name in
                RunPartsConverter.Script(name: name, isExecutable: true, owner: "root",
                                         text: TestFiles.read(Self.corpus + "/" + directory + "/" + name) ?? "")
            }
            let runner = RunPartsRunner.find(directory: "/etc/" + directory, crontab: Self.runnerFile("crontab"),
                                             anacrontab: Self.runnerFile("anacrontab"))
            let result = RunPartsConverter.convert(directory: "/etc/" + directory, scripts: scripts, runner: runner)
            #expect(result.errors.isEmpty)
            #expect(result.jobs.count + result.notes.count == scripts.count, "\(directory)")
            for job in result.jobs { Self.expectAccepted(job) }
        }
    }

    static func runnerFile(_ name: String) -> RunPartsRunner.File? {
        TestFiles.read(corpus + "/etc/" + name).map { RunPartsRunner.File(path: "/etc/" + name, text: $0) }
    }

    @Test func cronHourlyRunsWithTheEnvironmentOfDebiansCrontab() throws {
        let runner = try #require(RunPartsRunner.find(directory: "/etc/cron.hourly", crontab: Self.runnerFile("crontab"),
                                                      anacrontab: Self.runnerFile("anacrontab")))
        #expect(runner.program == .cron)
        #expect(runner.source == "/etc/crontab:18")
        #expect(runner.environment.variables == [.init("PATH", "/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin"),
                                                 .init("SHELL", "/bin/sh")])
    }

    @Test func cronDailyRunsUnderAnacronWhereItIsInstalledElseUnderCron() throws {
        let anacron = try #require(RunPartsRunner.find(directory: "/etc/cron.daily", crontab: Self.runnerFile("crontab"),
                                                       anacrontab: Self.runnerFile("anacrontab")))
        #expect(anacron.program == .anacron)
        #expect(anacron.source == "/etc/anacrontab:11")
        #expect(anacron.environment.variables == [.init("SHELL", "/bin/sh"),
                                                  .init("PATH", "/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin"),
                                                  .init("HOME", "/root"), .init("LOGNAME", "root")])
        let monthly = try #require(RunPartsRunner.find(directory: "/etc/cron.monthly", crontab: nil,
                                                       anacrontab: Self.runnerFile("anacrontab")))
        #expect(monthly.source == "/etc/anacrontab:13")
        let cron = try #require(RunPartsRunner.find(directory: "/etc/cron.weekly", crontab: Self.runnerFile("crontab"),
                                                    anacrontab: nil))
        #expect(cron.program == .cron)
        #expect(cron.source == "/etc/crontab:20")
        // Under cron, at the crontab line's time (Sundays 06:47) with PAM's /etc/environment; under
        // anacron once a period, from anacron.service, without PAM.
        let script = RunPartsConverter.Script(name: "x", isExecutable: true, owner: "root", text: "#!/bin/sh\n")
        let underCron = try #require(RunPartsConverter.convert(directory: "/etc/cron.weekly", scripts: [script], runner: cron).jobs.first)
        #expect(underCron.keys.filter { ["Schedule", "Interval", "CatchUp", "EnvironmentFile"].contains($0.key) }.map { "\($0.key)=\($0.value)" }
            == ["Schedule=Sun *-*-* 06:47", "CatchUp=no", "EnvironmentFile=-/etc/environment"], "\(underCron.text)")
        let underAnacron = try #require(RunPartsConverter.convert(directory: "/etc/cron.daily", scripts: [script], runner: anacron).jobs.first)
        #expect(underAnacron.keys.filter { ["Schedule", "Interval", "CatchUp", "EnvironmentFile"].contains($0.key) }.map { "\($0.key)=\($0.value)" }
            == ["Interval=1d"], "\(underAnacron.text)")
    }

    /// Debian's anacron 2.3 reads MAILTO alone (its anacrontab(5) names no other setting): cronie's
    /// START_HOURS_RANGE and RANDOM_DELAY limit nothing there and reach its jobs' environment.
    @Test func debiansAnacronHandsCroniesSettingsToItsJobsAndKeepsMailtoForItself() throws {
        let text = "MAILTO=ops@example.com\nSTART_HOURS_RANGE=3-22\nRANDOM_DELAY=45\n"
            + "1\t5\tcron.daily\trun-parts --report /etc/cron.daily\n"
        let runner = try #require(RunPartsRunner.find(directory: "/etc/cron.daily", crontab: nil,
                                                      anacrontab: RunPartsRunner.File(path: "/etc/anacrontab", text: text)))
        #expect(runner.environment.variables == [.init("SHELL", "/bin/sh"), .init("START_HOURS_RANGE", "3-22"),
                                                 .init("RANDOM_DELAY", "45")])
    }

    @Test func debiansAnacronServiceRunsOnlyOnACPowerUntilADropInClearsIt() throws {
        let unit = try #require(TestFiles.read(Self.corpus + "/systemd/anacron.service"))
        #expect(RunPartsRunner.anacronNeedsACPower(unitTexts: [unit]))
        // README.Debian's on-ac.conf.
        #expect(!RunPartsRunner.anacronNeedsACPower(unitTexts: [unit, "[Unit]\nConditionACPower=\n"]))
        #expect(!RunPartsRunner.anacronNeedsACPower(unitTexts: []))
    }

    @Test func debiansAnacronServiceStopsAnacronWithoutStoppingItsJobs() throws {
        let unit = try #require(TestFiles.read(Self.corpus + "/systemd/anacron.service"))
        #expect(RunPartsRunner.anacronKillMode(unitTexts: [unit]) == "mixed")
        #expect(RunPartsRunner.anacronKillMode(unitTexts: [unit, "[Service]\nKillMode=control-group\n"]) == "control-group")
        #expect(RunPartsRunner.anacronKillMode(unitTexts: []) == nil)
    }

    @Test func debiansAnacronTimerStartsAnacronHourlyFromHalfPastSevenUntilADropInChangesIt() throws {
        let timer = try #require(TestFiles.read(Self.corpus + "/systemd/anacron.timer"))
        #expect(RunPartsRunner.anacronCalendars(timerTexts: [timer]) == ["*-*-* 07..23:30"])
        #expect(RunPartsRunner.anacronCalendars(timerTexts: [timer, "[Timer]\nOnCalendar=\nOnCalendar=*-*-* 12:00\n"])
            == ["*-*-* 12:00"])
    }

    @Test func aScriptAnacronRanWaitsForACAndGetsTheAnacrontabsEnvironment() throws {
        var runner = try #require(RunPartsRunner.find(directory: "/etc/cron.daily", crontab: nil,
                                                      anacrontab: Self.runnerFile("anacrontab")))
        runner.onlyOnACPower = true
        runner.anacronCalendars = ["*-*-* 07..23:30"]
        runner.anacronKillMode = "mixed"
        let script = RunPartsConverter.Script(name: "backup", isExecutable: true, owner: "root", text: "#!/bin/sh\n")
        let result = RunPartsConverter.convert(directory: "/etc/cron.daily", scripts: [script], runner: runner)
        let job = try #require(result.jobs.first)
        Self.expectAccepted(job)
        #expect(job.sources == ["/etc/cron.daily/backup", "/etc/anacrontab:11"])
        #expect(job.keys.contains { $0 == ("RequiresExternalPower", "yes") })
        // Unplugged midway, anacron's job went on: this one is paused, never expired.
        #expect(job.keys.contains { $0 == ("OnConditionLost", "pause") })
        #expect(job.keys.contains { $0 == ("MaxPause", "infinity") })
        #expect(job.notes.contains { $0.hasPrefix("anacron.service stops anacron without stopping the jobs it runs (KillMode=mixed)") },
                "\(job.notes)")
        #expect(job.keys.filter { $0.key == "Environment" }.map(\.value)
            == ["SHELL=/bin/sh", "PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin", "HOME=/root", "LOGNAME=root"])
        #expect(result.notes.isEmpty)
        #expect(job.notes.contains("anacron ran it at boot and when anacron.timer started anacron (OnCalendar=*-*-* 07..23:30); "
            + "agentd may start it at any hour, which a Window= limits"), "\(job.notes)")
    }

    /// Neither cron nor systemd stops a job for heat, a low battery or memory pressure: whatever
    /// anacron's KillMode=, the converted job is paused where agentd's policy would expire it,
    /// and only the KillMode= that spares the jobs is named.
    @Test func anAnacronWhoseStopEndsItsJobsStillLeavesTheConvertedJobPausing() throws {
        var runner = try #require(RunPartsRunner.find(directory: "/etc/cron.daily", crontab: nil,
                                                      anacrontab: Self.runnerFile("anacrontab")))
        runner.onlyOnACPower = true
        runner.anacronKillMode = "control-group"
        let script = RunPartsConverter.Script(name: "backup", isExecutable: true, owner: "root", text: "#!/bin/sh\n")
        let job = try #require(RunPartsConverter.convert(directory: "/etc/cron.daily", scripts: [script], runner: runner).jobs.first)
        #expect(job.keys.filter { $0.key == "OnConditionLost" || $0.key == "MaxPause" }.map(\.value) == ["pause", "infinity"])
        #expect(!job.notes.contains { $0.contains("KillMode") })
        #expect(job.notes.contains { $0.hasPrefix("cron and systemd never stop a job for heat, a low battery or memory pressure") })
    }

    @Test func aDirectoryNothingRunsKeepsAgentdsEnvironmentAndSaysSo() throws {
        let script = RunPartsConverter.Script(name: "backup", isExecutable: true, owner: "root", text: "#!/bin/sh\n")
        let result = RunPartsConverter.convert(directory: "/srv/cron.daily", scripts: [script], runner: nil)
        let job = try #require(result.jobs.first)
        #expect(!job.keys.contains { $0.key == "Environment" || $0.key == "RequiresExternalPower" })
        #expect(result.notes == ["/srv/cron.daily: no line of the crontab or anacrontab beside it runs run-parts on it, "
            + "so its jobs get agentd's PATH and their user's login shell rather than a crontab's; "
            + "add Environment= lines to a job whose script needs a crontab's "
            + "(cron's own: Environment=PATH=/usr/bin:/bin and Environment=SHELL=/bin/sh)"])
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
