// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue: `agentctl convert` on this machine's real systemd timers and cron.d files; every
/// converted file passes `agentctl check`.
@Suite struct ConvertTests {
    static func machineTimers() -> [String] {
        let directory = "/lib/systemd/system"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".timer") && !$0.contains("@") }.sorted().map { directory + "/" + $0 }
    }

    static func cronFiles() -> [String] {
        let directory = "/etc/cron.d"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README" }.sorted().map { directory + "/" + $0 }
    }

    /// Exit 0; or, where the agentd package (its mail-report plugin) is not installed, exit 1 with
    /// the report job for a `MAILTO=` as the only job not written.
    static func expectConverted(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
        let pluginInstalled = FileManager.default.isExecutableFile(atPath: "/usr/lib/agentd/plugins/mail-report")
        let refused = result.stderr.split(separator: "\n").filter { $0.hasPrefix("agentctl: not written") || $0.contains("error") }
        let onlyTheReport = refused.allSatisfy { $0.contains("mail-report-root.job") && $0.contains("does not exist") }
        #expect(result.status == 0 || (result.status == 1 && !pluginInstalled && !refused.isEmpty && onlyTheReport),
                "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func theMachinesTimersAndCronFilesConvertToJobsThatPassCheck() throws {
        let timers = Self.machineTimers()
        try #require(!timers.isEmpty, "a Debian 12 system has timers in /lib/systemd/system")
        let sandbox = try Sandbox()
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory] + timers + Self.cronFiles())
        Self.expectConverted(converted)
        for timer in timers {
            let name = (timer as NSString).lastPathComponent.replacingOccurrences(of: ".timer", with: ".job")
            #expect(FileManager.default.fileExists(atPath: sandbox.jobsDirectory + "/" + name), "\(name) written")
        }
        let check = try runCommand(Binaries.agentctl, ["check", "--json", sandbox.configDirectory])
        #expect(check.status == 0, "\(check.stdout)")
        let report = try json(check.stdout) as? [String: Any]
        let diagnostics = report?["diagnostics"] as? [[String: Any]] ?? []
        let errors = diagnostics.filter { $0["severity"] as? String == "error" }
        #expect(errors.isEmpty, "\(errors)")
        let unknown = diagnostics.filter { ($0["message"] as? String)?.contains("unknown key") == true }
        #expect(unknown.isEmpty, "every key convert writes is one agentd reads: \(unknown)")
        #expect((report?["jobCount"] as? Int ?? 0) >= timers.count)
    }

    /// The shipped examples (/usr/share/doc/agentd/examples/debian-timers) are real jobs.
    @Test func theShippedDebianTimerExamplesPassCheckWithoutAWarning() throws {
        let sandbox = try Sandbox()
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("etc/examples/debian-timers").path
        let names = try FileManager.default.contentsOfDirectory(atPath: examples).filter { $0.hasSuffix(".job") }
        #expect(names.count == 7)
        for name in names {
            let text = try String(contentsOfFile: examples + "/" + name, encoding: .utf8)
            try sandbox.write("jobs.d/" + name, text)
        }
        let check = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("7 jobs, 0 errors, 0 warnings"), "\(check.stdout)")
    }

    /// From `make convert-compare`'s first run: convert wrote mail-report-root.job once per
    /// crontab with MAILTO=root, repeated fstrim's ConditionVirtualization= (timer and service
    /// both say it), and read `cron.d/x` given relative to /etc as a user crontab.
    @Test func convertWritesEachJobOnceEachConditionOnceAndKnowsARelativeCronD() throws {
        let sandbox = try Sandbox()
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ConvertCorpus").path
        try FileManager.default.createDirectory(atPath: sandbox.root + "/etc/cron.d", withIntermediateDirectories: true)
        for name in ["a", "b"] {
            try "MAILTO=root\n17 3 * * * root /bin/true \(name)\n".write(toFile: sandbox.root + "/etc/cron.d/" + name,
                                                                      atomically: false, encoding: .utf8)
        }
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory,
                                                          corpus + "/systemd/fstrim.timer", "cron.d/a", "cron.d/b"],
                                       currentDirectory: sandbox.root + "/etc")
        // Written where the mail-report plugin is installed, else named once as not written.
        let said = converted.stdout + converted.stderr
        #expect(said.split(separator: "\n").filter { $0.contains("mail-report-root.job") }.count == 1, "\(said)")
        let fstrim = try String(contentsOfFile: sandbox.jobsDirectory + "/fstrim.job", encoding: .utf8)
        #expect(fstrim.components(separatedBy: "ConditionVirtualization=!container").count - 1 == 1, "\(fstrim)")
        let cron = try String(contentsOfFile: sandbox.jobsDirectory + "/a-1.job", encoding: .utf8)
        #expect(cron.contains("User=root\n") && cron.contains("-c \"/bin/true a\""), "\(cron)")
        // Named from inside cron.d (`cd /etc/cron.d && agentctl convert *`): the same, and a name
        // cron skips is refused as from anywhere else (helper-41).
        try "17 3 * * * root /bin/true\n".write(toFile: sandbox.root + "/etc/cron.d/c.disabled", atomically: false, encoding: .utf8)
        let inside = try runCommand(Binaries.agentctl, ["convert", "b", "./a", "c.disabled"], currentDirectory: sandbox.root + "/etc/cron.d")
        #expect(inside.stdout.components(separatedBy: "User=root\n").count - 1 == 2, "\(inside.stdout)")
        #expect(!inside.stdout.contains("-c \"root "), "\(inside.stdout)")
        #expect(inside.stderr.contains("c.disabled: not converted: cron ignores it"), "\(inside.stderr)")
    }

    /// Debian's guarded cron line (`test -e /run/systemd/system || …`) and the enabled timers:
    /// `--system` converts what runs on this machine. Where systemd is init the timers run and
    /// the line does nothing; where it is not (this CI host), the line runs and the timers never
    /// did (helper-41: they used to be converted, and the line left out).
    @Test func convertSystemTakesWhatRunsOnThisMachine() throws {
        let systemd = FileManager.default.fileExists(atPath: "/run/systemd/system")
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ConvertCorpus").path
        let line = try runCommand(Binaries.agentctl, ["convert", corpus + "/cron.d/e2scrub_all"])
        Self.expectConverted(line)
        if systemd {
            #expect(!line.stdout.contains("/run/systemd/system"), "\(line.stdout)")
            #expect(line.stderr.contains("left out: it runs only on a machine without systemd"), "\(line.stderr)")
        } else {
            #expect(line.stdout.components(separatedBy: "test -e /run/systemd/system").count - 1 == 2, "\(line.stdout)")
            #expect(line.stdout.contains("systemd is not its init"), "\(line.stdout)")
            #expect(!line.stderr.contains("left out"), "\(line.stderr)")
        }
        let enabled = ((try? FileManager.default.contentsOfDirectory(atPath: "/etc/systemd/system/timers.target.wants")) ?? [])
            .filter { $0.hasSuffix(".timer") }
        let system = try runCommand(Binaries.agentctl, ["convert", "--system"])
        for timer in enabled {
            let convertedTimer = system.stdout.split(separator: "\n").contains {
                $0.hasPrefix("# jobs.d/") && $0.contains("converted by agentctl convert from") && $0.contains("/" + timer)
            }
            #expect(convertedTimer == systemd, "\(timer): \(system.stderr)")
        }
        if !systemd && !enabled.isEmpty {
            #expect(system.stderr.contains("systemd is not this machine's init (no /run/systemd/system), so they never ran here"),
                    "\(system.stderr)")
        }
    }

    /// The closing advice disables only what a written job replaces: a timer or cron line whose
    /// job `check` refused keeps running where it is, or its work would be lost.
    @Test func onlyWhatAWrittenJobReplacesIsToBeDisabled() throws {
        let sandbox = try Sandbox()
        let units = sandbox.root + "/units", cron = sandbox.root + "/cron.d"
        for directory in [units, cron] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        for name in ["good", "refused"] {
            try "[Timer]\nOnCalendar=daily\n[Install]\nWantedBy=timers.target\n".write(toFile: "\(units)/\(name).timer", atomically: false, encoding: .utf8)
            let user = name == "good" ? "" : "User=no-such-user-here\n"
            try "[Service]\n\(user)ExecStart=/bin/true\n".write(toFile: "\(units)/\(name).service", atomically: false, encoding: .utf8)
        }
        try "MAILTO=\"\"\n5 * * * * root /bin/true\n6 * * * * no-such-user-here /bin/true\n7 * * * * root /bin/true\n"
            .write(toFile: cron + "/x", atomically: false, encoding: .utf8)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory,
                                                           units + "/good.timer", units + "/refused.timer", cron + "/x"])
        #expect(converted.status == 1, "\(converted)")
        #expect(converted.stderr.contains("not written: refused.job"), "\(converted.stderr)")
        #expect(converted.stderr.contains("not written: x-2.job"), "\(converted.stderr)")
        let advice = converted.stderr.components(separatedBy: "disable what they replace:\n").last ?? ""
        #expect(advice == "  systemctl disable --now good.timer\n  comment out lines 2, 4 of \(cron)/x\n", "\(converted.stderr)")
    }

    /// disable undoes what a timer's [Install] made: systemd-tmpfiles-clean.timer has none (its
    /// package links it), mdcheck_start.timer says Also=mdcheck_continue.timer. mask stops each alone.
    @Test func aStaticTimerOrOneWithAlsoIsMaskedNotDisabled() throws {
        let sandbox = try Sandbox()
        let units = sandbox.root + "/units"
        try FileManager.default.createDirectory(atPath: units, withIntermediateDirectories: true)
        let installs = ["static": "", "also": "[Install]\nWantedBy=timers.target\nAlso=also-continue.timer\n"]
        for (name, install) in installs {
            try "[Timer]\nOnCalendar=daily\n\(install)".write(toFile: "\(units)/\(name).timer", atomically: false, encoding: .utf8)
            try "[Service]\nExecStart=/bin/true\n".write(toFile: "\(units)/\(name).service", atomically: false, encoding: .utf8)
        }
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory,
                                                           units + "/static.timer", units + "/also.timer"])
        #expect(converted.status == 0, "\(converted)")
        #expect(converted.stderr.contains("  systemctl mask --now static.timer  (static: disable would not stop it)\n"), "\(converted.stderr)")
        #expect(converted.stderr.contains("  systemctl mask --now also.timer  (disable would also disable also-continue.timer)\n"),
                "\(converted.stderr)")
    }

    /// mdadm-last-resort@.timer says only OnActiveSec=30, counted from the timer's start, which
    /// udev makes: a job of it would never run, so none is written and nothing is disabled.
    @Test func aTimerWhoseOnlyTriggerCountsFromItsOwnStartIsNotConverted() throws {
        let sandbox = try Sandbox()
        let units = sandbox.root + "/units"
        try FileManager.default.createDirectory(atPath: units, withIntermediateDirectories: true)
        try "[Unit]\nConflicts=sys-devices-virtual-block-%i.device\n[Timer]\nOnActiveSec=30\n"
            .write(toFile: units + "/last-resort@.timer", atomically: false, encoding: .utf8)
        try "[Service]\nExecStart=/bin/true\n".write(toFile: units + "/last-resort@.service", atomically: false, encoding: .utf8)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory, units + "/last-resort@md0.timer"])
        #expect(converted.status == 1, "\(converted)")
        #expect(converted.stderr.contains("not written: last-resort_md0.job: \(units)/last-resort@md0.timer has no trigger agentd can express (OnActiveSec=30: they count from the timer's own start, which something else makes); leave it to systemd"),
                "\(converted.stderr)")
        #expect(!converted.stderr.contains("systemctl"), "\(converted.stderr)")
    }

    /// A cron.d file with escaped and unescaped `%` and `SHELL=/bin/bash`, converted and run under
    /// agentd, writes what Debian's cron (3.0pl1-162) wrote for the same two lines when they were
    /// run by the real daemon on 2026-12-06: `\%` is a literal `%`, the first `%` starts the
    /// command's standard input, where each further one is a newline, and bash runs the commands.
    @Test func aConvertedCronLineWithPercentSignsRunsAsCronRanIt() throws {
        let sandbox = try Sandbox()
        let out = sandbox.root + "/out", mail = sandbox.root + "/mail"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/cron.d", withIntermediateDirectories: true)
        let crontab = "SHELL=/bin/bash\nMAILTO=\n"
            + "5 * * * * root echo \"year $(date +\\%Y)\" 'lit \\%d' >> \(out); [[ -n $BASH_VERSION ]] && echo bash >> \(out)\n"
            + "7 * * * * root cat > \(mail)%hello $HOME%second \\% line\n"
        try crontab.write(toFile: sandbox.root + "/cron.d/pct", atomically: false, encoding: .utf8)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory, "cron.d/pct"],
                                       currentDirectory: sandbox.root)
        #expect(converted.status == 0, "\(converted)")
        let agent = try AgentProcess(sandbox: sandbox)
        for id in ["local.pct-1", "local.pct-2"] {
            let run = try agent.ctl("run", id, "--wait")
            #expect(run.status == 0, "\(run)")
        }
        var year = tm()
        var now = time(nil)
        localtime_r(&now, &year)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "year \(1900 + year.tm_year) lit %d\nbash\n")
        #expect(try String(contentsOfFile: mail, encoding: .utf8) == "hello $HOME\nsecond % line\n")
    }

    /// cron starts a command in the crontab's HOME=, else its user's home, and where it is when
    /// that directory is missing: nobody's /nonexistent made the converted line spawn-failed.
    @Test(.enabled(if: getuid() == 0, "needs root: the lines run as nobody"))
    func aConvertedCronLineStartsInCronsDirectoryEvenWithoutAHome() throws {
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)
        let out = sandbox.root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        chmod(out, 0o777)
        try FileManager.default.createDirectory(atPath: sandbox.root + "/cron.d", withIntermediateDirectories: true)
        try "MAILTO=\n5 * * * * nobody pwd > \(out)/home\nHOME=/tmp\n6 * * * * nobody pwd > \(out)/tmp\n"
            .write(toFile: sandbox.root + "/cron.d/dirs", atomically: false, encoding: .utf8)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory, "cron.d/dirs"],
                                       currentDirectory: sandbox.root)
        #expect(converted.status == 0, "\(converted)")
        let agent = try AgentProcess(sandbox: sandbox)
        for id in ["local.dirs-1", "local.dirs-2"] {
            let run = try agent.ctl("run", id, "--wait")
            #expect(run.status == 0, "\(run)")
        }
        #expect(try String(contentsOfFile: out + "/home", encoding: .utf8) == "/\n", "nobody's home is /nonexistent")
        #expect(try String(contentsOfFile: out + "/tmp", encoding: .utf8) == "/tmp\n")
    }

    /// cron runs a crontab in its spool as the user the file is named for, whoever of that
    /// user and root owns it, and ignores it when another user owns it: a root-owned
    /// `crontabs/nobody` converted to `User=root`.
    @Test(.enabled(if: getuid() == 0, "needs root: the crontabs are chowned"))
    func aUserCrontabInCronsSpoolRunsAsTheUserItIsNamedFor() throws {
        let sandbox = try Sandbox()
        let spool = sandbox.root + "/spool/cron/crontabs"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        for name in ["nobody", "daemon", "no-such-user-here"] {
            try "5 * * * * /usr/bin/id -u\n".write(toFile: spool + "/" + name, atomically: false, encoding: .utf8)
            chmod(spool + "/" + name, 0o600)
        }
        chown(spool + "/daemon", 65534, 65534)  // nobody's file named daemon: cron ignores it
        let converted = try runCommand(Binaries.agentctl, ["convert", "--user-crontab", "--output-dir", sandbox.jobsDirectory,
                                                           spool + "/nobody", spool + "/daemon", spool + "/no-such-user-here"])
        let job = (try? String(contentsOfFile: sandbox.jobsDirectory + "/nobody-1.job", encoding: .utf8)) ?? ""
        #expect(job.contains("\nUser=nobody\n"), "\(job)\n\(converted)")
        #expect(converted.stderr.contains("\(spool)/daemon: cron ignores it: it is owned by uid 65534, neither daemon nor root"),
                "\(converted.stderr)")
        #expect(converted.stderr.contains("\(spool)/no-such-user-here: cron ignores it: there is no user no-such-user-here"),
                "\(converted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.jobsDirectory + "/daemon-1.job"))
    }

    /// cron skips a cron.d file whose name breaks run-parts' rule: `agentctl convert
    /// /etc/cron.d/*` converted dpkg's and editors' leftovers into jobs that never ran before.
    @Test func aCronDFileCronSkipsForItsNameIsNotConverted() throws {
        let sandbox = try Sandbox()
        let cronD = sandbox.root + "/cron.d"
        try FileManager.default.createDirectory(atPath: cronD, withIntermediateDirectories: true)
        for name in ["backup", "backup.dpkg-old", "backup.disabled"] {
            try "0 1 * * * root /bin/true\n".write(toFile: cronD + "/" + name, atomically: false, encoding: .utf8)
        }
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory,
                                                           "cron.d/backup", "cron.d/backup.dpkg-old", "cron.d/backup.disabled"],
                                       currentDirectory: sandbox.root)
        let written = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.jobsDirectory)) ?? []
        #expect(written.filter { $0.hasSuffix(".job") && !$0.hasPrefix("mail-report") } == ["backup-1.job"], "\(written)")
        #expect(converted.stderr.contains("cron.d/backup.dpkg-old: not converted: cron ignores it: its name breaks run-parts' rule"),
                "\(converted.stderr)")
    }

    /// Not agentd's PATH (with /usr/local first) nor the user's login shell: cron's.
    @Test func aConvertedCronLineRunsWithCronsPathAndShell() throws {
        let sandbox = try Sandbox()
        let out = sandbox.root + "/env"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/cron.d", withIntermediateDirectories: true)
        try "MAILTO=\n5 * * * * root echo \"$PATH $SHELL\" > \(out)\n"
            .write(toFile: sandbox.root + "/cron.d/env", atomically: false, encoding: .utf8)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory, "cron.d/env"],
                                       currentDirectory: sandbox.root)
        #expect(converted.status == 0, "\(converted)")
        let agent = try AgentProcess(sandbox: sandbox)
        let run = try agent.ctl("run", "local.env-1", "--wait")
        #expect(run.status == 0, "\(run)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "/usr/bin:/bin /bin/sh\n")
    }

    /// A cron.hourly script beside Debian's /etc/crontab (cron-daemon-common 3.0pl1-162, in
    /// Tests/ConvertCorpus/etc) runs with that crontab's PATH and SHELL, as run-parts under cron ran it.
    @Test func aConvertedRunPartsScriptRunsWithItsCrontabsPathAndShell() throws {
        let sandbox = try Sandbox()
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ConvertCorpus").path
        let out = sandbox.root + "/env", script = sandbox.root + "/cron.hourly/env"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/cron.hourly", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: corpus + "/etc/crontab", toPath: sandbox.root + "/crontab")
        try "#!/bin/sh\necho \"$PATH $SHELL\" > \(out)\n".write(toFile: script, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory, "cron.hourly"],
                                       currentDirectory: sandbox.root)
        #expect(converted.status == 0, "\(converted)")
        let job = try String(contentsOfFile: sandbox.jobsDirectory + "/env.job", encoding: .utf8)
        #expect(job.hasPrefix("# jobs.d/env.job: converted by agentctl convert from \(script) and \(sandbox.root)/crontab:18\n"),
                "\(job)")
        // At the crontab line's minute, as cron ran it (helper-41: Interval=1h ran it on load).
        #expect(job.contains("\nSchedule=*-*-* *:17\nCatchUp=no\n") && !job.contains("Interval="), "\(job)")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("registered local.env")
        let run = try agent.ctl("run", "local.env", "--wait")
        #expect(run.status == 0, "\(run)")
        #expect(try String(contentsOfFile: out, encoding: .utf8)
            == "/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin /bin/sh\n")
    }

    /// rkhunter ships /etc/cron.daily/rkhunter (its scan) and /etc/cron.weekly/rkhunter (its
    /// update): converted together, each is a job of its own, named by its directory, and the
    /// advice names both; converted apart into one directory, the second does not replace the first.
    @Test func scriptsOfOneNameInTwoDirectoriesAreNamedApartNeverOverwritten() throws {
        let sandbox = try Sandbox()
        for (directory, word) in [("cron.daily", "scan"), ("cron.weekly", "update")] {
            try FileManager.default.createDirectory(atPath: sandbox.root + "/" + directory, withIntermediateDirectories: true)
            let script = sandbox.root + "/\(directory)/rkhunter"
            try "#!/bin/sh\necho \(word)\n".write(toFile: script, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        }
        let out = sandbox.root + "/out"
        let both = try runCommand(Binaries.agentctl, ["convert", "--output-dir", out, "cron.daily", "cron.weekly"],
                                  currentDirectory: sandbox.root)
        #expect(both.status == 0, "\(both)")
        let daily = try String(contentsOfFile: out + "/rkhunter-daily.job", encoding: .utf8)
        let weekly = try String(contentsOfFile: out + "/rkhunter-weekly.job", encoding: .utf8)
        #expect(daily.contains("Identifier=local.rkhunter-daily\n") && daily.contains("Exec=\(sandbox.root)/cron.daily/rkhunter\n"), "\(daily)")
        #expect(weekly.contains("Identifier=local.rkhunter-weekly\n") && weekly.contains("Interval=7d\n"), "\(weekly)")
        #expect(!FileManager.default.fileExists(atPath: out + "/rkhunter.job"))
        #expect(both.stderr.contains("would each be rkhunter.job: written as rkhunter-daily.job and rkhunter-weekly.job"), "\(both.stderr)")
        #expect(both.stderr.contains("chmod -x \(sandbox.root)/cron.daily/rkhunter") && both.stderr.contains("chmod -x \(sandbox.root)/cron.weekly/rkhunter"))

        // One directory at a time into the same place: the second keeps its hands off the first.
        let apart = sandbox.root + "/apart"
        #expect(try runCommand(Binaries.agentctl, ["convert", "--output-dir", apart, "cron.daily"], currentDirectory: sandbox.root).status == 0)
        let second = try runCommand(Binaries.agentctl, ["convert", "--output-dir", apart, "cron.weekly"], currentDirectory: sandbox.root)
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains("not written: \(apart)/rkhunter.job is there already, converted from \(sandbox.root)/cron.daily/rkhunter, not \(sandbox.root)/cron.weekly/rkhunter; convert both in one agentctl convert"), "\(second.stderr)")
        #expect(!second.stderr.contains("chmod -x"), "nothing written replaces the weekly script: \(second.stderr)")
        #expect(try String(contentsOfFile: apart + "/rkhunter.job", encoding: .utf8).contains("cron.daily/rkhunter"))
        // Converting the same directory again replaces its own job.
        #expect(try runCommand(Binaries.agentctl, ["convert", "--output-dir", apart, "cron.daily"], currentDirectory: sandbox.root).status == 0)
    }

    /// anacron's 0anacron stamps the directory done (anacron -u); a job of its own would make
    /// anacron skip every script left there. A symlink to a script runs under run-parts: it is
    /// converted like the script.
    @Test func zeroAnacronIsLeftOutAndASymlinkedScriptIsConverted() throws {
        let sandbox = try Sandbox()
        let directory = sandbox.root + "/cron.daily"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "#!/bin/sh\ntest -x /usr/sbin/anacron || exit 0\nanacron -u cron.daily\n".write(toFile: directory + "/0anacron", atomically: false, encoding: .utf8)
        try "#!/bin/sh\necho real\n".write(toFile: sandbox.root + "/myjob", atomically: false, encoding: .utf8)
        for path in [directory + "/0anacron", sandbox.root + "/myjob"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        try FileManager.default.createSymbolicLink(atPath: directory + "/linked", withDestinationPath: sandbox.root + "/myjob")
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.root + "/out", "cron.daily"],
                                       currentDirectory: sandbox.root)
        #expect(converted.status == 0, "\(converted)")
        #expect(converted.stderr.contains("\(directory)/0anacron: left out: it is anacron's own bookkeeping"), "\(converted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/out/0anacron.job"))
        let linked = try String(contentsOfFile: sandbox.root + "/out/linked.job", encoding: .utf8)
        #expect(linked.contains("Exec=\(directory)/linked\n"), "\(linked)")
    }

    /// mdadm's timers say ExecStartPre=-/usr/lib/mdadm/mdadm_env.sh, a file Debian 12's mdadm does
    /// not ship: systemd ignores it (203/EXEC under `-`) and runs mdcheck. So do check and a run.
    @Test func aDashCommandWhoseProgramIsMissingIsSkippedAsSystemdSkipsIt() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/check.job", """
            [Job]
            Identifier=local.check
            Kind=processing
            Exec=-\(sandbox.root)/missing/mdadm_env.sh
            Exec=/bin/echo mdcheck ran

            """)
        let checked = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(checked.status == 0, "\(checked)")
        #expect(checked.stdout.contains("does not exist; its - prefix lets each run go on without it"), "\(checked.stdout)")
        let agent = try AgentProcess(sandbox: sandbox)
        let run = try agent.ctl("run", "local.check", "--wait")
        #expect(run.status == 0, "\(run)")
        let logs = try agent.ctl("logs", "local.check")
        #expect(logs.stdout.contains("command 1 not started (No such file or directory); its - prefix lets the run go on"), "\(logs.stdout)")
        #expect(logs.stdout.contains("mdcheck ran"), "\(logs.stdout)")
    }

    /// `systemctl edit` drop-ins beside Debian's apt-daily.timer and .service (Tests/ConvertCorpus):
    /// the job has the calendar, environment and conditions systemd would run them with.
    @Test func dropInsBesideATimerAndItsServiceAreConvertedAsSystemdAppliesThem() throws {
        let sandbox = try Sandbox()
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ConvertCorpus").path
        let units = sandbox.root + "/units"
        for directory in ["apt-daily.timer.d", "apt-daily.service.d"] {
            try FileManager.default.createDirectory(atPath: units + "/" + directory, withIntermediateDirectories: true)
        }
        for name in ["apt-daily.timer", "apt-daily.service"] {
            try FileManager.default.copyItem(atPath: corpus + "/systemd/" + name, toPath: units + "/" + name)
        }
        try "[Timer]\nOnCalendar=\nOnCalendar=*-*-* 03:00\nRandomizedDelaySec=0\n"
            .write(toFile: units + "/apt-daily.timer.d/override.conf", atomically: false, encoding: .utf8)
        try "[Unit]\nConditionACPower=\n[Service]\nEnvironment=http_proxy=http://proxy:3128\n"
            .write(toFile: units + "/apt-daily.service.d/proxy.conf", atomically: false, encoding: .utf8)
        let converted = try runCommand(Binaries.agentctl, ["convert", "--output-dir", sandbox.jobsDirectory,
                                                          units + "/apt-daily.timer"])
        #expect(converted.status == 0, "\(converted)")
        let job = try String(contentsOfFile: sandbox.jobsDirectory + "/apt-daily.job", encoding: .utf8)
        #expect(job.hasPrefix("# jobs.d/apt-daily.job: converted by agentctl convert from \(units)/apt-daily.timer, "
            + "apt-daily.service, \(units)/apt-daily.timer.d/override.conf and \(units)/apt-daily.service.d/proxy.conf\n"), "\(job)")
        let keys = job.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(keys.filter { $0.hasPrefix("Schedule=") } == ["Schedule=*-*-* 03:00"], "\(job)")
        #expect(keys.contains("RandomizedDelay=0") && keys.contains("Environment=http_proxy=http://proxy:3128"), "\(job)")
        #expect(!keys.contains { $0.hasPrefix("ConditionACPower") }, "\(job)")
        let check = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(check.status == 0, "\(check.stdout)")
    }

    /// A unit named relative to its directory is the file given: no note that systemd would use
    /// another, and the header names it as given.
    @Test func aTimerGivenByARelativePathIsReadWhereItIs() throws {
        let sandbox = try Sandbox()
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ConvertCorpus").path
        for name in ["fstrim.timer", "fstrim.service"] {
            try FileManager.default.copyItem(atPath: corpus + "/systemd/" + name, toPath: sandbox.root + "/" + name)
        }
        let converted = try runCommand(Binaries.agentctl, ["convert", "fstrim.timer"], currentDirectory: sandbox.root)
        #expect(converted.status == 0, "\(converted)")
        #expect(!converted.stderr.contains("in its place"), "\(converted.stderr)")
        #expect(converted.stdout.hasPrefix("# jobs.d/fstrim.job: converted by agentctl convert from fstrim.timer and fstrim.service\n"),
                "\(converted.stdout)")
    }

    @Test func aMaskedTimerIsNotConvertedAndSaysSo() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createSymbolicLink(atPath: sandbox.root + "/fstrim.timer", withDestinationPath: "/dev/null")
        let result = try runCommand(Binaries.agentctl, ["convert", sandbox.root + "/fstrim.timer"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(sandbox.root)/fstrim.timer is masked: systemd never starts fstrim.timer"), "\(result.stderr)")
    }

    @Test func aTemplateTimerIsRefusedWithWhatToDo() throws {
        let sandbox = try Sandbox()
        let path = sandbox.root + "/pg_dump@.timer"
        try "[Timer]\nOnCalendar=daily\n".write(toFile: path, atomically: false, encoding: .utf8)
        let result = try runCommand(Binaries.agentctl, ["convert", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is a template: convert an instance"))
    }
}
