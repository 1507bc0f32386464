// SPDX-License-Identifier: Apache-2.0
/// A run-parts directory (`/etc/cron.daily`) → one job per script run-parts would run, pointing
/// at the script in place, with the directory's interval (issue 26 item 10), and the environment
/// the crontab or anacrontab line that runs the directory gave it.
public enum RunPartsConverter {
    /// A script of the directory: its name, whether it is an executable regular file, its owner
    /// and its first bytes (to see a systemd guard).
    public struct Script: Sendable {
        public var name: String
        public var isExecutable: Bool
        public var owner: String?
        public var text: String

        public init(name: String, isExecutable: Bool, owner: String?, text: String) {
            self.name = name
            self.isExecutable = isExecutable
            self.owner = owner
            self.text = text
        }
    }

    /// The interval of `/etc/cron.hourly|daily|weekly|monthly`, or nil for another directory.
    public static func interval(ofDirectory path: String) -> String? {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        switch trimmed.split(separator: "/").last.map(String.init) ?? "" {
        case "cron.hourly": return "1h"
        case "cron.daily": return "1d"
        case "cron.weekly": return "7d"
        case "cron.monthly": return "30d"
        default: return nil
        }
    }

    public static func convert(directory: String, scripts: [Script], runner: RunPartsRunner?,
                               prefix: String = "local", underSystemd: Bool = true) -> CronConverter.Result {
        var result = CronConverter.Result()
        guard let interval = interval(ofDirectory: directory) else {
            result.errors.append("\(directory): not a run-parts directory of cron (cron.hourly, cron.daily, cron.weekly, cron.monthly)")
            return result
        }
        for script in scripts.sorted(by: { $0.name < $1.name }) {
            // run-parts' rule: other names (x.dpkg-old, .placeholder, x.sh) and non-executables never run.
            guard DropInScript.hasRunPartsName(script.name), script.isExecutable else { continue }
            let path = directory + (directory.hasSuffix("/") ? "" : "/") + script.name
            if script.name == "0anacron" || script.text.contains("anacron -u") {
                // Run inside anacron's pass, it stamps the directory done; as a job of its own
                // it would make anacron skip every script left in the directory that day.
                result.notes.append("\(path): left out: it is anacron's own bookkeeping (anacron -u marks this "
                    + "directory's jobs done for the day); as a job of its own it would stop anacron running the rest")
                continue
            }
            let testsSystemd = script.text.contains("/run/systemd/system")
            if testsSystemd && underSystemd {
                result.notes.append("\(path): left out: it does nothing under systemd (it tests /run/systemd/system); "
                    + "convert its systemd timer instead")
                continue
            }
            let base = JobName.sanitized(script.name)
            var job = ConvertedJob(fileName: base + ".job", sources: [path] + (runner.map { [$0.source] } ?? []))
            job.set("Identifier", "\(prefix).\(base)")
            job.set("Kind", "processing")
            job.set("User", script.owner ?? "root")
            job.set("WorkingDirectory", "/")
            job.set("Exec", ExecQuoting.join([path]))
            if testsSystemd { job.notes.append(CronConverter.withoutSystemdNote) }
            if let cron = runner?.cronLine {
                // Without anacron, cron runs the directory at its line's time (Debian's 06:25 for
                // cron.daily), and skips a time the machine was off.
                job.set("Schedule", cron.schedule)
                job.set("CatchUp", "no")
                job.notes.append("cron ran this directory at its line's time and skipped a time the machine was off; "
                    + "CatchUp=yes would run it once afterwards, as anacron does")
                if cron.eitherDay {
                    job.notes.append("cron runs that line when the day of month OR the weekday matches; Schedule= needs both")
                }
            } else {
                job.set("Interval", interval)
            }
            if let runner { apply(runner, to: &job) }
            // run-parts imposes no limit.
            job.set("MaxRuntime", "infinity")
            job.goesOnAsTheOriginalDid()
            result.jobs.append(job)
        }
        if runner == nil, !result.jobs.isEmpty {
            result.notes.append("\(directory): no line of the crontab or anacrontab beside it runs run-parts on it, "
                + "so its jobs get agentd's PATH and their user's login shell rather than a crontab's; "
                + "add Environment= lines to a job whose script needs a crontab's "
                + "(cron's own: Environment=PATH=/usr/bin:/bin and Environment=SHELL=/bin/sh)")
        }
        return result
    }

    static func apply(_ runner: RunPartsRunner, to job: inout ConvertedJob) {
        if runner.onlyOnACPower {
            // Waiting for AC, as anacron did: its timer tries every hour, and a day it could not
            // run is run on the next hour on AC. Skipping (ConditionACPower=) would lose the day.
            job.set("RequiresExternalPower", "yes")
            job.notes.append("anacron.service runs only on AC power (ConditionACPower=true): "
                + "RequiresExternalPower=yes waits for it the same way")
        }
        if let killMode = runner.anacronKillMode, ServiceConversion.sparesChildren(killMode: killMode) {
            // Stopping anacron leaves its jobs running: agentd's expiry would end every process
            // of the run, so a lost condition (the plug pulled, heat) pauses it instead.
            ServiceConversion.pausesInsteadOfExpiring(&job)
            job.notes.append("anacron.service stops anacron without stopping the jobs it runs (KillMode=\(killMode)): "
                + "so that a lost condition never stops this one midway, it pauses it (OnConditionLost=pause, MaxPause=infinity)")
        }
        if !runner.anacronCalendars.isEmpty {
            let calendars = runner.anacronCalendars.map { "OnCalendar=\($0)" }.joined(separator: ", ")
            job.notes.append("anacron ran it at boot and when anacron.timer started anacron (\(calendars)); "
                + "agentd may start it at any hour, which a Window= limits")
        }
        // anacron runs from anacron.service, without PAM.
        runner.environment.write(into: &job, underPAM: runner.program == .cron)
    }
}
