// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private func unit(_ text: String) -> UnitFile {
    UnitFileParser.parse(Array(text.utf8), path: "x", expectedSection: "[Timer]").value ?? UnitFile()
}

func value(_ job: ConvertedJob, _ key: String) -> String? {
    job.keys.last { $0.key == key }?.value
}

/// Issue: `agentctl convert` turns timers and cron lines into job files that say what they
/// could not express.
@Suite struct ConverterTests {
    @Test func cronTimeFieldsBecomeCalendarEvents() {
        let cases: [(String, String)] = [
            ("10 3 * * * root /bin/true", "*-*-* 03:10"),
            ("30 3 * * 0 root /bin/true", "Sun *-*-* 03:30"),
            ("0 9 * * 1-5 root /bin/true", "Mon..Fri *-*-* 09:00"),
            ("*/15 * * * * root /bin/true", "*-*-* *:00/15"),
            ("0 0-23/6 * * * root /bin/true", "*-*-* 00,06,12,18:00"),
            ("0 4 1 * * root /bin/true", "*-*-01 04:00"),
            ("0 4 1,15 jan,jul * root /bin/true", "*-01,07-01,15 04:00"),
            ("0-30/10 2 * * sat,sun root /bin/true", "Sat,Sun *-*-* 02:00,10,20,30"),
            ("5 4 * * 7 root /bin/true", "Sun *-*-* 04:05"),
        ]
        for (line, schedule) in cases {
            guard case .success(let cron)? = CronLine.parse(line, withUser: true) else {
                Issue.record("\(line) did not parse")
                continue
            }
            #expect(cron.schedule == schedule, "\(line)")
            #expect(cron.user == "root")
            #expect(cron.command == "/bin/true")
        }
    }

    /// cron runs a line when either day field matches only when both are restricted; a field
    /// that starts with `*` (`*/2`) counts as unrestricted (entry.c), so both must match.
    @Test func aDayFieldStartingWithAStarIsNoRestrictionForCronsEitherDayRule() throws {
        let stepped = try #require(try? CronLine.parse("0 0 */2 * mon root /bin/true", withUser: true)?.get())
        #expect(!stepped.eitherDay)
        let both = try #require(try? CronLine.parse("0 0 1-15 * mon root /bin/true", withUser: true)?.get())
        #expect(both.eitherDay)
    }

    /// cron runs @reboot only when it starts at boot: the job waits for the next boot when it is
    /// added mid-uptime (helper-41: it ran at once, a second time that boot).
    @Test func anAtRebootLineIsABootRunThatAJobAddedLaterWaitsFor() throws {
        let converted = CronConverter.convert("@reboot root /usr/local/bin/start-thing\n", name: "c", source: "/etc/cron.d/c",
                                              withUser: true)
        let job = try #require(converted.jobs.first { $0.fileName == "c-1.job" }, "\(converted.jobs.map(\.fileName))")
        #expect(job.value(of: "AfterBoot") == "0" && job.value(of: "CatchUp") == "no", "\(job.text)")
        #expect(job.value(of: "Schedule") == nil)
        #expect(job.notes.contains { $0.hasPrefix("cron runs an @reboot line only when it starts at boot") })
    }

    @Test func cronNicknamesAndRebootAndBadLines() {
        if case .success(let daily)? = CronLine.parse("@daily /usr/bin/x --y", withUser: false) {
            #expect(daily.schedule == "*-*-* 00:00:00")
            #expect(daily.command == "/usr/bin/x --y")
        } else { Issue.record("@daily") }
        if case .success(let boot)? = CronLine.parse("@reboot root /usr/bin/x", withUser: true) {
            #expect(boot.atBoot)
        } else { Issue.record("@reboot") }
        if case .success(let weekly)? = CronLine.parse("@weekly /usr/bin/x", withUser: false) {
            #expect(weekly.schedule == "Sun *-*-* 00:00:00")
        } else { Issue.record("@weekly") }
        if case .failure(let error)? = CronLine.parse("61 * * * * root x", withUser: true) {
            #expect(error.description.contains("\"61\" is not in 0-59"))
        } else { Issue.record("61 minutes") }
        #expect(CronLine.parse("# comment", withUser: true) == nil)
        #expect(CronLine.parse("PATH=/usr/bin:/bin", withUser: true) == nil)
    }

    @Test func aCronFileBecomesOneShellJobPerLineWithItsEnvironment() throws {
        let text = "SHELL=/bin/sh\nMAILTO=root\n# a comment\n10 3 * * * root test -e /x || echo \"hi\"\n0 1 1 * 2 nobody /bin/true\n"
        let result = CronConverter.convert(text, name: "e2scrub_all", source: "/etc/cron.d/e2scrub_all", withUser: true)
        #expect(result.errors.isEmpty)
        let jobs = result.jobs.filter { !$0.fileName.hasPrefix("mail-report") }
        #expect(jobs.map(\.fileName) == ["e2scrub_all-1.job", "e2scrub_all-2.job"])
        #expect(value(jobs[0], "OnFailure") == "local.mail-report-root")
        #expect(value(jobs[0], "Exec") == #"/bin/sh -c "test -e /x || echo \"hi\"""#)
        #expect(jobs[0].keys.filter { $0.0 == "Environment" }.map(\.1) == ["PATH=/usr/bin:/bin", "SHELL=/bin/sh"])
        #expect(value(jobs[0], "MaxRuntime") == "infinity")
        #expect(value(jobs[1], "User") == "nobody")
        #expect(jobs[1].text.contains("day of month OR the weekday"))
        // The Exec= line splits back into the words cron's shell would get.
        if let exec = value(jobs[0], "Exec") {
            #expect(try ExecLine.split(exec).get() == ["/bin/sh", "-c", #"test -e /x || echo "hi""#])
        }
    }

    /// cron reads a crontab whole or not at all: a file with one wrong line, or without a final
    /// newline, runs nothing, so its other lines are not converted into jobs that would run.
    @Test(arguments: [
        "0 1 * * * root /bin/echo one\nbogus line\n",
        "0 1 * * * root /bin/echo one\n0 0/6 * * * root /bin/echo two\n",
        "0 1 * * * root /bin/echo one",
    ])
    func aCrontabCronWouldIgnoreConvertsToNothing(text: String) {
        let result = CronConverter.convert(text, name: "bad", source: "/etc/cron.d/bad", withUser: true)
        #expect(result.jobs.isEmpty, "\(result.jobs.map(\.fileName))")
        #expect(result.errors.last == "/etc/cron.d/bad: not converted: cron ignores the whole file for the error above; "
            + "fix it, then convert the file again", "\(result.errors)")
    }

    /// A crontab written on Windows: Swift reads CR LF as one character, so splitting at "\n"
    /// left the file one line (MAILTO's value), and nothing was converted, silently.
    @Test func aCrontabWithCRLFLineEndsConvertsEachLineAndSaysSo() {
        let text = "MAILTO=\r\n0 1 * * * root /bin/echo one\r\n30 5 * * 0 root /bin/echo two\r\n"
        let result = CronConverter.convert(text, name: "crlf", source: "/etc/cron.d/crlf", withUser: true)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.jobs.map(\.fileName) == ["crlf-1.job", "crlf-2.job"])
        #expect(result.jobs.compactMap { value($0, "Exec") } == [#"/bin/sh -c "/bin/echo one""#, #"/bin/sh -c "/bin/echo two""#])
        #expect(result.notes.contains { $0.hasPrefix("/etc/cron.d/crlf: its lines end in CR LF") }, "\(result.notes)")
    }

    /// cron gives each command PATH=/usr/bin:/bin and SHELL=/bin/sh until the crontab assigns
    /// them; an assignment counts from its line on.
    @Test func aCronLineGetsCronsPathAndShellUnlessTheCrontabSetsThemAbove() {
        let text = "0 1 * * * root first\nPATH=/usr/lib/sysstat:/usr/bin:/bin\nLANG=C\n0 2 * * * root second\n"
        let jobs = CronConverter.convert(text, name: "sysstat", source: "/etc/cron.d/sysstat", withUser: true).jobs
            .filter { !$0.fileName.hasPrefix("mail-report") }
        let environments = jobs.map { job in job.keys.filter { $0.0 == "Environment" }.map(\.1) }
        #expect(environments == [["PATH=/usr/bin:/bin", "SHELL=/bin/sh"],
                                 ["PATH=/usr/lib/sysstat:/usr/bin:/bin", "SHELL=/bin/sh", "LANG=C"]])
    }

    @Test func aTimerAndItsServiceBecomeOneJobNamingWhatIsLeftOut() {
        let timer = unit("[Unit]\nDescription=Daily apt download activities\n[Timer]\nOnCalendar=*-*-* 6,18:00\nRandomizedDelaySec=12h\nPersistent=true\n[Install]\nWantedBy=timers.target\n")
        let service = unit("""
        [Unit]
        Description=Daily apt download activities
        ConditionACPower=true
        After=network.target network-online.target NetworkManager.service
        [Service]
        Type=oneshot
        ExecStartPre=-/usr/lib/apt/apt-helper wait-online
        ExecStart=/usr/lib/apt/apt.systemd.daily update
        Nice=19
        IOSchedulingClass=idle
        ProtectSystem=full
        TimeoutStopSec=900

        """)
        let job = TimerConverter.convert(timer: timer, service: service, name: "apt-daily", sources: ["apt-daily.timer"])
        #expect(job.fileName == "apt-daily.job")
        #expect(value(job, "Identifier") == "local.apt-daily")
        #expect(value(job, "Schedule") == "*-*-* 6,18:00")
        #expect(value(job, "RandomizedDelay") == "12h")
        #expect(value(job, "CatchUp") == "yes")
        #expect(value(job, "ConditionACPower") == "true")
        #expect(value(job, "User") == "root")
        #expect(value(job, "ProtectSystem") == "full")
        #expect(value(job, "Nice") == "19")
        #expect(value(job, "GracePeriod") == "15min")
        #expect(job.keys.filter { $0.key == "Exec" }.map(\.value)
            == ["-/usr/lib/apt/apt-helper wait-online", "/usr/lib/apt/apt.systemd.daily update"])
        #expect(!job.text.contains("WantedBy"))
    }

    /// systemd starts the service at whichever trigger comes first; Schedule= and Interval=
    /// must both hold, so a span beside a calendar is named, not made a second condition.
    @Test func aSpanTriggerBesideACalendarIsNamedNotMadeAnotherCondition() {
        let service = unit("[Service]\nExecStart=/bin/true\n")
        let both = TimerConverter.convert(timer: unit("[Timer]\nOnUnitActiveSec=6h\nOnCalendar=daily\n"), service: service,
                                          name: "both", sources: ["both.timer"])
        #expect(value(both, "Schedule") == "daily" && value(both, "Interval") == nil)
        #expect(both.notConverted.contains { $0.hasPrefix("OnUnitActiveSec=6h (systemd also starts") && $0.hasSuffix("Interval=6h)") },
                "\(both.notConverted)")
        let spans = TimerConverter.convert(timer: unit("[Timer]\nOnUnitActiveSec=1d\nOnUnitInactiveSec=1h\n"), service: service,
                                           name: "spans", sources: ["spans.timer"])
        #expect(spans.keys.filter { $0.key == "Interval" }.map(\.value) == ["1d"])
        #expect(spans.notConverted.contains { $0.hasPrefix("OnUnitInactiveSec=1h (a second span trigger") }, "\(spans.notConverted)")
    }

    /// systemd starts the service at each of a timer's calendars; a job has one Schedule=, so each
    /// further calendar is a job of its own, or disabling the timer would lose its runs (helper-41).
    @Test func eachFurtherCalendarOfATimerIsAJobOfItsOwn() {
        let jobs = TimerConverter.convertAll(timer: unit("[Timer]\nOnCalendar=Mon 01:00\nOnCalendar=Thu 13:00\nPersistent=yes\n"),
                                             service: unit("[Service]\nExecStart=/bin/true\n"), name: "two", sources: ["two.timer"])
        #expect(jobs.map(\.fileName) == ["two.job", "two-2.job"])
        #expect(jobs.map { value($0, "Identifier") } == ["local.two", "local.two-2"])
        #expect(jobs.map { value($0, "Schedule") } == ["Mon 01:00", "Thu 13:00"])
        #expect(jobs.allSatisfy { value($0, "CatchUp") == "yes" && value($0, "Exec") == "/bin/true" && $0.notConverted.isEmpty })
        #expect(jobs.allSatisfy { $0.notes.contains { $0.hasPrefix("the timer's 2 calendars are a job each, as a job has one Schedule= (two.job, two-2.job)") } })
        let one = TimerConverter.convertAll(timer: unit("[Timer]\nOnCalendar=daily\n"), service: unit("[Service]\nExecStart=/bin/true\n"),
                                            name: "one", sources: ["one.timer"])
        #expect(one.count == 1 && one.first?.notes.contains { $0.contains("calendars") } == false)
    }

    /// A oneshot's start timeout limits its run and RuntimeMaxSec= does nothing to it; any other
    /// type is limited by RuntimeMaxSec= alone (systemd.service(5)).
    @Test(arguments: [
        ("Type=simple\nTimeoutStartSec=30s\n", "infinity"),
        ("Type=oneshot\nTimeoutStartSec=10min\nRuntimeMaxSec=30s\n", "10min"),
        ("RuntimeMaxSec=1h\n", "1h"),
        ("Type=oneshot\nTimeoutSec=5min\n", "5min"),
        ("Type=notify\nTimeoutSec=5min\n", "infinity"),
    ])
    func aRunIsLimitedAsItsServiceTypeIs(settings: String, maxRuntime: String) {
        let job = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                         service: unit("[Service]\n" + settings + "ExecStart=/bin/sleep 600\n"),
                                         name: "limit", sources: ["limit.timer"])
        #expect(value(job, "MaxRuntime") == maxRuntime, "\(settings)")
    }

    /// systemd runs a `DynamicUser=yes` service as an unprivileged user made for it, in the sandbox
    /// that implies; converted, it ran as root.
    @Test func aDynamicUserServiceRunsAsNobodyInItsSandboxNeverAsRoot() {
        let timer = unit("[Timer]\nOnCalendar=daily\n")
        let job = TimerConverter.convert(timer: timer, service: unit("[Service]\nType=oneshot\nDynamicUser=yes\nExecStart=/bin/true\n"),
                                         name: "dyn", sources: ["dyn.timer"])
        #expect(value(job, "User") == "nobody")
        #expect(value(job, "ProtectSystem") == "strict" && value(job, "ProtectHome") == "read-only")
        #expect(value(job, "PrivateTmp") == "yes" && value(job, "NoNewPrivileges") == "yes")
        #expect(job.text.contains("DynamicUser=yes (agentd makes no user for a run: the job runs as nobody"), "\(job.text)")
        // A User= name is kept, and a sandbox key the service sets itself wins.
        let named = TimerConverter.convert(
            timer: timer, service: unit("[Service]\nDynamicUser=true\nUser=fetcher\nProtectSystem=full\nExecStart=/bin/true\n"),
            name: "named", sources: ["named.timer"])
        #expect(value(named, "User") == "fetcher")
        #expect(named.keys.filter { $0.key == "ProtectSystem" }.map(\.value) == ["full"])
    }

    /// `@` gives the program the next word as argv[0]: that word is no argument of it.
    @Test func anAtPrefixedCommandLosesItsArgvZeroWordNotItsArguments() {
        let job = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                         service: unit("[Service]\nExecStart=@/bin/sh mysh -c \"echo hi\"\nExecStart=@/bin/true \"my true\"\n"),
                                         name: "at", sources: ["at.timer"])
        #expect(job.keys.filter { $0.key == "Exec" }.map(\.value) == [#"/bin/sh -c "echo hi""#, "/bin/true"])
    }

    /// systemd takes an I/O class by its number too; realtime, which agentd does not offer, is
    /// named instead of making the job one `check` refuses.
    @Test(arguments: [("2", "best-effort"), ("idle", "idle"), ("3", "idle"), ("0", nil), ("1", nil), ("realtime", nil)])
    func anIOClassIsConvertedByNameOrNumber(setting: String, expected: String?) {
        let job = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                         service: unit("[Service]\nExecStart=/bin/true\nIOSchedulingClass=\(setting)\n"),
                                         name: "io", sources: ["io.timer"])
        #expect(value(job, "IOSchedulingClass") == expected, "\(setting)")
        ConvertCorpusTests.expectAccepted(job)
    }

    /// systemd's `CPUWeight=idle` is the lowest weight and more: the job gets the lowest weight
    /// and the difference is named, instead of a value `check` refuses.
    @Test func anIdleCPUWeightBecomesTheLowestWeight() {
        let job = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                         service: unit("[Service]\nExecStart=/bin/true\nCPUWeight=idle\n"),
                                         name: "cpu", sources: ["cpu.timer"])
        #expect(value(job, "CPUWeight") == "1")
        #expect(job.notConverted.contains { $0.hasPrefix("CPUWeight=idle (the run gets the lowest weight, 1;") }, "\(job.notConverted)")
        ConvertCorpusTests.expectAccepted(job)
    }

    /// systemd takes a uid for `User=`: the job names that user.
    @Test func aNumericUserBecomesItsName() {
        let job = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                         service: unit("[Service]\nUser=65534\nExecStart=/bin/true\n"),
                                         name: "uid", sources: ["uid.timer"], userName: { $0 == 65534 ? "nobody" : nil })
        #expect(value(job, "User") == "nobody")
        let unknown = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                             service: unit("[Service]\nUser=4242\nExecStart=/bin/true\n"),
                                             name: "uid", sources: ["uid.timer"])
        #expect(unknown.notConverted.contains { $0.hasPrefix("User=4242 (no user has that uid") }, "\(unknown.notConverted)")
    }

    /// A specifier only systemd can fill in (the host, the user's home) is named, not kept silently.
    @Test func aSpecifierLeftInACommandIsNamed() {
        let job = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                         service: unit("[Service]\nExecStart=/bin/echo %H %%d\n"),
                                         name: "spec", sources: ["spec.timer"])
        #expect(value(job, "Exec") == "/bin/echo %H %d")
        #expect(job.notConverted.contains { $0.hasPrefix("ExecStart=/bin/echo %H %%d (it holds a systemd specifier") }, "\(job.notConverted)")
    }

    /// systemd's `%%` is a literal `%`: an `Environment=` holding one is no specifier to leave out.
    @Test func aDoublePercentIsALiteralPercentAndASpecifierIsNamed() {
        let job = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                         service: unit("[Service]\nExecStart=/bin/true\nEnvironment=\"FMT=+%%F\" OTHER=1\nEnvironment=WHERE=%h\n"),
                                         name: "pct", sources: ["pct.timer"])
        #expect(job.keys.filter { $0.key == "Environment" }.map(\.value) == [#""FMT=+%F" OTHER=1"#])
        #expect(job.text.contains("Environment=WHERE=%h (systemd specifiers such as %h have no agentd form)"), "\(job.text)")
    }

    /// systemd waits for network-online.target at boot only and never stops a service when the
    /// network goes: the service's own wait stays a command, and RequiresNetwork=, which would
    /// also end the run, is only suggested.
    @Test func networkOrderingStaysAWaitAtTheStartNotARequirementForTheWholeRun() {
        let timer = unit("[Timer]\nOnCalendar=daily\n")
        let service = unit("""
        [Unit]
        After=network.target network-online.target NetworkManager.service
        Wants=network-online.target
        [Service]
        ExecStartPre=-/usr/lib/apt/apt-helper wait-online
        ExecStart=/usr/bin/fetch

        """)
        let job = TimerConverter.convert(timer: timer, service: service, name: "fetch", sources: ["fetch.timer"])
        #expect(value(job, "RequiresNetwork") == nil)
        #expect(job.keys.first { $0.key == "Exec" }?.value == "-/usr/lib/apt/apt-helper wait-online")
        #expect(job.notConverted.contains("After=network.target network-online.target NetworkManager.service "
            + "(ordering against other units; RequiresNetwork=yes would wait for a network before each run, "
            + "and end a run when it goes)"))
        #expect(job.notConverted.contains { $0.hasPrefix("Wants=network-online.target (ordering") })
        ConvertCorpusTests.expectAccepted(job)
    }

    /// apt-daily-upgrade.timer says After=apt-daily.timer; etckeeper.service DefaultDependencies=no:
    /// neither has an agentd form, and each is named rather than dropped (DESIGN §3).
    @Test func aTimersOrderingAndDefaultDependenciesNoAreNamed() {
        let job = TimerConverter.convert(
            timer: unit("[Unit]\nAfter=apt-daily.timer\n[Timer]\nOnCalendar=*-*-* 6:00\n"),
            service: unit("[Unit]\nDefaultDependencies=no\n[Service]\nExecStart=/bin/true\n"),
            name: "apt-daily-upgrade", sources: ["t"])
        #expect(job.notConverted.contains("After=apt-daily.timer (the timer's [Unit]: ordering of the timer against other units)"),
                "\(job.notConverted)")
        #expect(job.notConverted.contains { $0.hasPrefix("DefaultDependencies=no ([Unit]: boot and shutdown ordering") },
                "\(job.notConverted)")
        let plain = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                           service: unit("[Unit]\nDefaultDependencies=yes\n[Service]\nExecStart=/bin/true\n"),
                                           name: "x", sources: ["t"])
        #expect(!plain.notConverted.contains { $0.hasPrefix("DefaultDependencies") })
    }

    /// man-db.service (Debian 12) makes its cache directory as root with `+` before mandb runs as
    /// man: agentd runs every command as the job's User=, so what that line did is named, with
    /// what to do, under "Not expressed".
    @Test func aPrivilegedCommandPrefixIsNamedWithWhatItDidAndWhatToDo() {
        let job = TimerConverter.convert(
            timer: unit("[Timer]\nOnCalendar=daily\n"),
            service: unit("[Service]\nUser=man\nExecStart=+/usr/bin/install -d -o man -g man -m 0755 /var/cache/man\n"
                + "ExecStart=/usr/bin/mandb --quiet\n"),
            name: "man-db", sources: ["t"])
        #expect(job.notConverted.contains(
            "ExecStart=+/usr/bin/install -d -o man -g man -m 0755 /var/cache/man (its \"+\" ran it with full privileges, "
            + "outside the service's User= and sandbox; here it runs as the job's User=, and fails where it needs root: "
            + "give it a job of its own with User=root, or do once what it does)"), "\(job.notConverted)")
        #expect(!job.notes.contains { $0.contains("prefix") })
    }

    /// apt-daily-upgrade.service says KillMode=process: a stop reaches unattended-upgrade, never
    /// the dpkg it runs. agentd's expiry reaches every process, so the job pauses instead.
    @Test func aServiceWhoseStopSparesItsChildrenIsPausedNotExpiredWhenAConditionGoes() throws {
        let timer = unit("[Timer]\nOnCalendar=*-*-* 6:00\n")
        let upgrade = TimerConverter.convert(
            timer: timer, service: unit("[Service]\nExecStart=/usr/lib/apt/apt.systemd.daily install\nKillMode=process\n"),
            name: "apt-daily-upgrade", sources: ["t"])
        #expect(value(upgrade, "OnConditionLost") == "pause")
        #expect(value(upgrade, "MaxPause") == "infinity")
        #expect(upgrade.notConverted.contains { $0.hasPrefix("KillMode=process (agentd stops every process of a run") })
        let parsed = try #require(ConvertCorpusTests.parse(upgrade).value)
        #expect(parsed.onConditionLost == .pause && parsed.maxPause == JobDefinition.never)
        #expect(upgrade.keys.filter { $0.key == "OnConditionLost" || $0.key == "MaxPause" }.count == 2)
        // The last assignment counts, as systemd reads a drop-in that changes it back: no
        // KillMode= note, and the job pauses as every converted job does.
        for mode in ["control-group", "", "process\nKillMode=control-group"] {
            let job = TimerConverter.convert(
                timer: timer, service: unit("[Service]\nExecStart=/bin/true\nKillMode=\(mode)\n"), name: "x", sources: ["t"])
            #expect(value(job, "OnConditionLost") == "pause")
            #expect(!job.notConverted.contains { $0.hasPrefix("KillMode") })
        }
    }

    /// A suspend froze a timer's service, a cron line and a cron.daily script with the machine;
    /// each converted job is frozen over it too rather than expired before it.
    @Test func everyConvertedJobIsFrozenOverASuspendAsTheOriginalWas() throws {
        let timer = TimerConverter.convert(timer: unit("[Timer]\nOnCalendar=daily\n"),
                                           service: unit("[Service]\nExecStart=/bin/true\n"), name: "t", sources: ["t"])
        let cron = CronConverter.convert("0 1 * * * root /bin/true\n", name: "c", source: "/etc/cron.d/c", withUser: true)
            .jobs.filter { !$0.fileName.hasPrefix("mail-report") }
        let script = RunPartsConverter.Script(name: "tidy", isExecutable: true, owner: "root", text: "#!/bin/sh\n")
        let parts = RunPartsConverter.convert(directory: "/etc/cron.daily", scripts: [script], runner: nil).jobs
        let jobs = [timer] + cron + parts
        #expect(jobs.count == 3)
        for job in jobs {
            #expect(value(job, "OnSleep") == "freeze")
            #expect(try #require(ConvertCorpusTests.parse(job).value).extra.onSleep == .freeze)
        }
    }

    @Test func secondsWithoutAUnitAndInterval() {
        let timer = unit("[Timer]\nOnBootSec=15min\nOnUnitActiveSec=1d\nRandomizedDelaySec=6000\n")
        let service = unit("[Service]\nExecStart=systemd-tmpfiles --clean\n")
        let job = TimerConverter.convert(timer: timer, service: service, name: "systemd-tmpfiles-clean", sources: ["t"],
                                         resolve: { $0 == "systemd-tmpfiles" ? "/usr/bin/systemd-tmpfiles" : nil })
        #expect(value(job, "Interval") == "1d")
        #expect(value(job, "RandomizedDelay") == "1h 40min")
        #expect(value(job, "Exec") == "/usr/bin/systemd-tmpfiles --clean")
        #expect(value(job, "CatchUp") == nil)
        #expect(value(job, "AfterBoot") == "15min")
    }

    /// A percentage limit is a share of the machine in both systemd and agentd; a `%` anywhere
    /// else is still a specifier agentd cannot expand.
    @Test func percentageLimitsCarryOverAndSpecifiersStillDoNot() {
        let timer = unit("[Timer]\nOnCalendar=daily\n")
        let service = unit("[Service]\nExecStart=/usr/bin/true\nMemoryMax=50%\nMemoryHigh=2.5‰\nTasksMax=10%\nEnvironment=HOME=%h\n")
        let job = TimerConverter.convert(timer: timer, service: service, name: "limited", sources: ["limited.timer"])
        #expect(value(job, "MemoryMax") == "50%")
        #expect(value(job, "MemoryHigh") == "2.5‰")
        #expect(value(job, "TasksMax") == "10%")
        #expect(value(job, "Environment") == nil)
        #expect(job.notConverted == ["Environment=HOME=%h (systemd specifiers such as %h have no agentd form)"])
    }

    /// systemd's older names carry over under the new ones, and a specifier in them is named
    /// rather than copied as a literal path.
    @Test func olderNamesBecomeTheNewKeysAndTheirSpecifiersAreNamed() {
        let timer = unit("[Timer]\nOnCalendar=daily\n")
        let service = unit("[Service]\nExecStart=/usr/bin/true\nMemoryLimit=1G\nReadWriteDirectories=/var/lib/x\nReadOnlyDirectories=%h/data\n")
        let job = TimerConverter.convert(timer: timer, service: service, name: "old", sources: ["old.timer"])
        #expect(value(job, "MemoryMax") == "1G")
        #expect(value(job, "ReadWritePaths") == "/var/lib/x")
        #expect(value(job, "ReadOnlyPaths") == nil)
        #expect(job.notConverted == ["ReadOnlyDirectories=%h/data (systemd specifiers such as %h have no agentd form)"])
    }

    /// fstrim.service writes `PrivateDevices=no`: off, as systemd's default, it confines nothing and
    /// loses nothing, so it is not listed as left out; the switches that are on still are.
    @Test func sandboxSwitchesWrittenOffAreNotListedAsLeftOut() {
        let timer = unit("[Timer]\nOnCalendar=weekly\n")
        let service = unit("[Service]\nExecStart=/sbin/fstrim -a\nPrivateDevices=no\nPrivateUsers=false\nProtectKernelTunables=yes\nUMask=0\n")
        let job = TimerConverter.convert(timer: timer, service: service, name: "fstrim", sources: ["fstrim.timer"])
        #expect(job.notConverted == [
            "ProtectKernelTunables=yes (a systemd sandbox setting agentd's job sandbox does not offer)",
            "UMask=0 (a systemd sandbox setting agentd's job sandbox does not offer)",
        ])
    }
}
