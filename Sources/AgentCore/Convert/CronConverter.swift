// SPDX-License-Identifier: Apache-2.0
/// crontab(5) lines → job files that run as cron ran them (issue 26): each schedule line is a
/// processing job run through `/bin/sh -c` as the line's user (cron.d's user field, or the
/// crontab's owner), in the crontab's `HOME=` or that user's home (`/` when it is missing),
/// with no time limit; `MAILTO` becomes `OnFailure=`.
public enum CronConverter {
    /// What converting one file gave.
    public struct Result: Sendable {
        public var jobs: [ConvertedJob] = []
        public var errors: [String] = []
        /// Lines left out on purpose, each saying why.
        public var notes: [String] = []
    }

    /// - Parameters:
    ///   - name: the file's base name (`e2scrub_all`): jobs are `PREFIX.NAME-N`.
    ///   - withUser: a system crontab (`/etc/crontab`, `/etc/cron.d/*`) with a user field.
    ///   - owner: a user crontab's owner, whom its lines run as.
    /// For a line or script that runs only where systemd is not init, converted on such a machine.
    static let withoutSystemdNote = "this machine has no /run/systemd/system (systemd is not its init), so this runs "
        + "here, as under cron; should systemd become init, its test makes it do nothing and its timer does the work"

    public static func convert(_ text: String, name: String, source: String, withUser: Bool,
                               owner: String? = nil, prefix: String = "local", underSystemd: Bool = true) -> Result {
        // cron's own environment for each command. Without it a command would get agentd's
        // wider PATH, with /usr/local first, and the user's login shell as $SHELL.
        var environment = CronEnvironment.cron
        var mailTo: String?
        var result = Result()
        var reports: Set<String> = []
        var number = 0
        let base = JobName.sanitized(name)
        if text.contains("\r\n") {
            result.notes.append("\(source): its lines end in CR LF (a file written on Windows): cron keeps each CR as "
                + "the last character of a command or value; the converted jobs have none")
        }
        for (index, rawLine) in text.crontabLines.enumerated() {
            let line = String(rawLine)
            let place = "\(source):\(index + 1)"
            if let variable = CronLine.environment(line.trimmingSpaces), !line.trimmingSpaces.hasPrefix("#") {
                if variable.name == "MAILTO" {
                    mailTo = variable.value
                } else {
                    environment.assign(variable.name, variable.value)
                }
                continue
            }
            switch CronLine.parse(line, withUser: withUser) {
            case nil: continue
            case .failure(let error)?: result.errors.append("\(place): \(error)")
            case .success(let cron)?:
                let withoutSystemdOnly = CronCommand.runsOnlyWithoutSystemd(cron.command)
                if withoutSystemdOnly && underSystemd {
                    // Debian guards a cron line that has a timer twin this way: under systemd the
                    // line does nothing and the timer does the work; convert the timer.
                    result.notes.append("\(place): left out: it runs only on a machine without systemd "
                        + "(it tests /run/systemd/system); convert its systemd timer instead")
                    continue
                }
                number += 1
                var job = ConvertedJob(fileName: "\(base)-\(number).job", sources: [place])
                if withoutSystemdOnly {
                    job.notes.append(Self.withoutSystemdNote)
                }
                job.set("Identifier", "\(prefix).\(base)-\(number)")
                job.set("Kind", "processing")
                let user = cron.user ?? owner
                if let user { job.set("User", user) }
                // cron starts a command in the crontab's HOME=, else its user's home, and runs
                // it where it was when that directory is missing (nobody's /nonexistent).
                let home = environment.home.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "~"
                job.set("WorkingDirectory", "-" + home)
                let run = Self.exec(CronCommand(line: cron.command), shell: environment.shell)
                job.set("Exec", run.exec)
                if let note = run.note { job.notes.append(note) }
                if cron.atBoot {
                    job.set("AfterBoot", "0")
                    job.set("CatchUp", "no")
                    job.notes.append("cron runs an @reboot line only when it starts at boot; with CatchUp=no a job "
                        + "added after the boot waits for the next one (it ran under cron this boot)")
                } else {
                    job.set("Schedule", cron.schedule)
                    job.set("CatchUp", "no")
                    job.notes.append("cron skips a time the machine was off; CatchUp=yes would run it once afterwards")
                }
                if cron.eitherDay {
                    job.notes.append("cron runs this line when the day of month OR the weekday matches; Schedule= needs both")
                }
                environment.write(into: &job, underPAM: true)
                // cron imposes no time limit.
                job.set("MaxRuntime", "infinity")
                job.goesOnAsTheOriginalDid()
                if let address = mailTo ?? user, !address.isEmpty {
                    let report = MailReport.job(for: address, prefix: prefix)
                    job.set("OnFailure", report.identifier)
                    job.notes.append("cron mailed this line's output to \(address) after every run; agentd mails "
                        + "it only after a failure (OnFailure=\(report.identifier))")
                    if reports.insert(report.job.fileName).inserted { result.jobs.append(report.job) }
                }
                result.jobs.append(job)
            }
        }
        if let last = text.unicodeScalars.last, last != "\n" {
            result.errors.append("\(source): its last line has no newline at its end")
        }
        if !result.errors.isEmpty {
            // cron reads a crontab whole or not at all ("this crontab file will be ignored").
            result.errors.append("\(source): not converted: cron ignores the whole file for the error above; "
                + "fix it, then convert the file again")
            result.jobs = []
        }
        return result
    }
}

extension CronConverter {
    /// The `Exec=` line that runs `line` as cron would: through `shell -c`, and with what follows
    /// an unescaped `%` on its standard input, from a pipe as cron gives it (the command and its
    /// input are passed to an outer /bin/sh as arguments, so neither needs quoting for the other).
    /// With it, the note the job file carries when the command gets an input.
    static func exec(_ line: CronCommand, shell: String) -> (exec: String, note: String?) {
        guard let input = line.input else {
            return (ExecQuoting.join([shell, "-c", line.command]).replacingDollars(), nil)
        }
        let feed = "printf '%s' \"$1\" | \"$2\" -c \"$0\""
        return (ExecQuoting.join(["/bin/sh", "-c", feed, line.command, input, shell]).replacingDollars(),
                "cron wrote what follows the first % to the command's standard input (each further % a newline); "
                    + "so does this job, through printf")
    }
}

/// The job an `OnFailure=` names to mail a failed run's output (the shipped `mail-report`
/// plugin, through /usr/sbin/sendmail), one per address.
enum MailReport {
    static func job(for address: String, prefix: String) -> (identifier: String, job: ConvertedJob) {
        let name = "mail-report-" + JobName.sanitized(address)
        var job = ConvertedJob(fileName: name + ".job", sources: ["cron's MAILTO=\(address)"])
        let identifier = "\(prefix).\(name)"
        job.set("Identifier", identifier)
        job.set("Kind", "processing")
        job.set("User", "root")
        job.set("Exec", ExecQuoting.join(["/usr/lib/agentd/plugins/mail-report", address]))
        job.notes.append("launched by OnFailure= with the failed run's output in AGENTD_PREVIOUS_OUTPUT")
        return (identifier, job)
    }
}

/// A file or unit name as the last part of an identifier and a file name: `[A-Za-z0-9_-]`,
/// other bytes (dots too) `_`, so it is one identifier component and never a hidden file.
enum JobName {
    static func sanitized(_ name: String) -> String {
        let bytes = name.utf8.map { byte -> UInt8 in
            let ok = TextBytes.isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F || byte == 0x2D
            return ok ? byte : 0x5F
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.isEmpty ? "job" : text
    }
}

extension String {
    /// A crontab's lines: split at each newline, a CR LF (one Character in Swift) included.
    var crontabLines: [Substring] {
        split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }
}
