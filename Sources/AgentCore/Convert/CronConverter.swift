// SPDX-License-Identifier: Apache-2.0
/// crontab(5) lines → job files: each schedule line becomes a processing job run through
/// `/bin/sh -c` (cron runs its commands with a shell; agentd's `Exec=` has none).
public enum CronConverter {
    /// - Parameters:
    ///   - name: the file's base name (`e2scrub_all`): jobs are `PREFIX.NAME-N`.
    ///   - withUser: a system crontab (`/etc/crontab`, `/etc/cron.d/*`) with a user field.
    public static func convert(_ text: String, name: String, source: String, withUser: Bool,
                               prefix: String = "local") -> (jobs: [ConvertedJob], errors: [String]) {
        var environment: [String] = []
        var jobs: [ConvertedJob] = []
        var errors: [String] = []
        let base = JobName.sanitized(name)
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            if let variable = CronLine.environment(line.trimmingSpaces), !line.trimmingSpaces.hasPrefix("#") {
                // MAILTO has no meaning here; the rest is the commands' environment.
                if variable.name != "MAILTO" { environment.append("\(variable.name)=\(variable.value)") }
                continue
            }
            switch CronLine.parse(line, withUser: withUser) {
            case nil: continue
            case .failure(let error)?: errors.append("\(source):\(index + 1): \(error)")
            case .success(let cron)?:
                let number = jobs.count + 1
                var job = ConvertedJob(fileName: "\(base)-\(number).job", sources: ["\(source):\(index + 1)"])
                job.set("Identifier", "\(prefix).\(base)-\(number)")
                job.set("Kind", "processing")
                job.set("Exec", ExecQuoting.join(["/bin/sh", "-c", cron.command]))
                if let problem = cron.problem {
                    job.notConverted.append(problem + "; the job runs only when triggered (agentctl trigger)")
                } else {
                    job.set("Schedule", cron.schedule)
                    job.set("CatchUp", "no")
                    job.notes.append("cron skips a time the machine was off; CatchUp=yes would run it once afterwards")
                }
                if cron.eitherDay {
                    job.notes.append("cron runs this line when the day of month OR the weekday matches; Schedule= needs both")
                }
                if let user = cron.user { job.set("User", user) }
                for variable in environment { job.set("Environment", ExecQuoting.quote(variable)) }
                job.set("MaxRuntime", "1h")
                if cron.command.contains("%") {
                    job.notConverted.append("% in the command: cron turns it into a newline and feeds what follows on stdin; agentd passes it as is")
                }
                jobs.append(job)
            }
        }
        return (jobs, errors)
    }
}

/// A file or unit name as the last part of an identifier: `[A-Za-z0-9._-]`, other bytes `_`.
enum JobName {
    static func sanitized(_ name: String) -> String {
        let bytes = name.utf8.map { byte -> UInt8 in
            let ok = TextBytes.isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2E || byte == 0x5F || byte == 0x2D
            return ok ? byte : 0x5F
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.isEmpty ? "job" : text
    }
}
