// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// crontab(5)'s `%`: an escaped one is a literal `%`, the first unescaped one ends the command and
/// starts its standard input, where each further one is a newline (Debian's cron 3.0pl1, checked
/// against the real daemon: see the converter test below).
struct CronCommandTests {
    @Test(arguments: [
        (#"date +\%F"#, CronCommand(command: "date +%F")),
        (#"echo 'lit \%d' \\ \x"#, CronCommand(command: #"echo 'lit %d' \\ \x"#)),
        ("cat > /tmp/m%hello%second line", CronCommand(command: "cat > /tmp/m", input: "hello\nsecond line\n")),
        (#"mail root%a \% b%%"#, CronCommand(command: "mail root", input: "a % b\n\n")),
        (#"cat%x \y\\"#, CronCommand(command: "cat", input: "x \\y\\\\\n")),
        ("true%", CronCommand(command: "true")),
        (#"echo \\%in"#, CronCommand(command: #"echo \\"#, input: "in\n")),
    ])
    func percentSignsAreReadAsCronReadsThem(_ line: String, _ expected: CronCommand) {
        #expect(CronCommand(line: line) == expected)
    }

    @Test func anEscapedPercentReachesTheShellWithoutItsBackslash() throws {
        let result = CronConverter.convert("0 0 * * 0 root [ $(date +\\%d) -le 7 ] && echo 'day \\%d'\n", name: "mdadm",
                                           source: "/etc/cron.d/mdadm", withUser: true)
        let job = try #require(result.jobs.first { !$0.fileName.hasPrefix("mail-report") })
        let exec = try #require(value(job, "Exec"))
        // `$$` is agentd's literal `$` (Exec= expands `$VAR` as systemd does).
        #expect(try ExecLine.split(exec).get() == ["/bin/sh", "-c", "[ $$(date +%d) -le 7 ] && echo 'day %d'"], "\(exec)")
        #expect(job.notConverted.isEmpty)
    }

    /// What follows the first `%` reaches the command's standard input through a pipe, as cron
    /// feeds it; the crontab's SHELL= runs the command.
    @Test func theInputAfterAPercentIsPipedToTheCommandRunByTheCrontabsShell() throws {
        let result = CronConverter.convert("SHELL=/bin/bash\n7 * * * * root cat > /tmp/m%hello $HOME%second\n",
                                           name: "feed", source: "/etc/cron.d/feed", withUser: true)
        let job = try #require(result.jobs.first { !$0.fileName.hasPrefix("mail-report") })
        let exec = try #require(value(job, "Exec"))
        #expect(try ExecLine.split(exec).get() == [
            "/bin/sh", "-c", #"printf '%s' "$$1" | "$$2" -c "$$0""#, "cat > /tmp/m", "hello $$HOME\nsecond\n", "/bin/bash",
        ], "\(exec)")
        #expect(job.notes.contains { $0.hasPrefix("cron wrote what follows the first % to the command's standard input") })
    }

    @Test func aCrontabsShellRunsItsCommands() throws {
        let result = CronConverter.convert("SHELL=/bin/bash\n5 * * * * alice [[ -d ~ ]] && echo ok\n", name: "mine",
                                           source: "/etc/cron.d/mine", withUser: true)
        let exec = try #require(result.jobs.first { !$0.fileName.hasPrefix("mail-report") }.flatMap { value($0, "Exec") })
        #expect(try ExecLine.split(exec).get() == ["/bin/bash", "-c", "[[ -d ~ ]] && echo ok"], "\(exec)")
    }

    /// Debian's guard for a line with a timer twin does nothing under systemd; the opposite
    /// test runs the rest only under systemd, and was left out as if it were the guard.
    @Test(arguments: [
        ("test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r", true),
        (#"test -x /usr/bin/certbot -a \! -d /run/systemd/system && certbot -q renew"#, true),
        ("[ -d /run/systemd/system ] && /bin/systemctl try-restart foo.service", false),
        ("[ ! -d /run/systemd/system ] || /bin/systemctl try-restart foo.service", false),
        ("/usr/bin/backup --all", false),
    ])
    func aLineGuardedAgainstSystemdIsToldFromOneThatNeedsIt(command: String, guarded: Bool) {
        #expect(CronCommand.runsOnlyWithoutSystemd(command) == guarded, "\(command)")
    }
}
