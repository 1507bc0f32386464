// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import Glibc

/// `agentctl convert FILE…`: systemd `.timer` units (with their `.service`), cron files
/// (`/etc/cron.d/*`, `/etc/crontab`, users' crontabs) and run-parts directories → job files, on
/// stdout or into `--output-dir`, each checked with the job parser before it is written. Ends
/// with the commands that disable what was converted; never runs them.
enum ConvertCommand {
    static let spec = CommandSpec(
        name: "convert", abstract: "Turn systemd timers, cron lines and cron directories into agentd job files.",
        discussion: """
        A FILE ending in .timer is read with its .service (the timer's Unit=, else the same name beside it)
        and the drop-ins systemd applies to both (systemctl edit's override.conf, a dash prefix's, service.d and
        timer.d); an instance of a template (foo@bar.timer) is read from foo@.timer and foo@.service. A masked
        unit is refused. A directory such as /etc/cron.daily becomes one job per script, with its interval and
        the environment of the line of the crontab (or, where anacron is installed, the anacrontab) beside it
        that runs it. Any other FILE is a crontab: with a user field when it is /etc/crontab or under a cron.d
        directory, else a user crontab run as its owner.
        --system reads the machine's enabled timers, /etc/crontab, /etc/cron.d and users' crontabs (where
        systemd is not init, no timers: they never ran; a cron line guarded by test -e /run/systemd/system
        then runs, and is converted).
        Jobs run as the originals did (a service without User= as root); what cannot be expressed is named in
        comments, and a job the parser would reject is not written.
        """,
        examples: ["agentctl convert /lib/systemd/system/apt-daily.timer",
                   "agentctl convert /etc/cron.d/e2scrub_all --output-dir /tmp/converted/jobs.d",
                   "agentctl convert /etc/cron.weekly",
                   "agentctl convert --system --output-dir /etc/agentd/jobs.d"],
        options: [OptionSpec(long: "output-dir", valueName: "DIR", help: "Write each job file into DIR instead of printing it."),
                  OptionSpec(long: "prefix", valueName: "PREFIX", help: "Identifier prefix (default local, which local.manifest permits)."),
                  OptionSpec(long: "user-crontab", help: "The files are user crontabs: no user field."),
                  OptionSpec(long: "system", help: "Convert the machine's enabled timers and crontabs.")],
        arguments: [ArgumentSpec(name: "FILE", help: "A .timer unit, a crontab or a cron directory.", isOptional: true, isRepeated: true)],
        run: { parsed, context in
            let prefix = parsed.value("prefix") ?? "local"
            if let problem = Identifier.problem(with: prefix + ".x") {
                throw UsageError(message: "--prefix: \(problem)", commandPath: ["convert"])
            }
            var paths = parsed.arguments
            var outcome = ConvertOutcome()
            if parsed.flag("system") {
                paths += ConvertSources.system(notes: &outcome.notes)
                if ConvertSources.systemdIsInit { outcome.notes += ConvertSources.timersLeftToSystemd() }
            }
            if paths.isEmpty {
                throw UsageError(message: "name a .timer, a crontab or a cron directory, or give --system", commandPath: ["convert"])
            }
            for path in paths {
                ConvertSources.convert(path, prefix: prefix, userCrontab: parsed.flag("user-crontab"), into: &outcome)
            }
            // Jobs of one name from different sources are named apart, never one over another.
            let renames = ConvertNaming.nameApart(&outcome.jobs)
            for index in outcome.replaced.indices { outcome.replaced[index].follow(renames) }
            for (name, group) in Dictionary(grouping: renames, by: \.from).sorted(by: { $0.key < $1.key }) {
                outcome.notes.append("\(group.map(\.source).joined(separator: " and ")) would each be \(name): written as "
                    + group.map(\.to).joined(separator: " and "))
            }
            // Every crontab with MAILTO=root asks for the same mail-report-root.job: write it once.
            var seen = Set<ConvertedJob>()
            let checked = ConvertValidation.check(outcome.jobs.filter { seen.insert($0).inserted })
            for failure in outcome.failures + checked.refusals { context.err("agentctl: " + context.errorStyle.error(failure)) }
            for note in outcome.notes { context.err("agentctl: " + note) }
            var written = checked.jobs
            if let directory = parsed.value("output-dir") {
                written = try write(checked.jobs, into: directory, context: context)
            } else {
                context.out(checked.jobs.map(\.text).joined(separator: "\n"))
            }
            let kept = Set(written.map(ConvertReplacement.JobRef.init))
            let disable = outcome.replaced.compactMap { $0.command(written: kept) }
            if !disable.isEmpty {
                context.err("agentctl: once the jobs are in jobs.d/ and agentctl check passes, disable what they replace:")
                for command in disable { context.err("  " + command) }
            }
            return outcome.failures.isEmpty && checked.refusals.isEmpty && written.count == checked.jobs.count ? 0 : 1
        })

    /// Writes each job into `directory`, and returns those written. A file already there is
    /// replaced only when convert wrote it from the same source (converting again); another
    /// job's file, or one convert did not write, is kept and the job not written.
    static func write(_ jobs: [ConvertedJob], into directory: String, context: CommandContext) throws -> [ConvertedJob] {
        var written: [ConvertedJob] = []
        do {
            try FileSystem.makeDirectories(directory, mode: 0o755)
            for job in jobs {
                // JobName never starts a name with a dot; this holds it should that change.
                guard !job.fileName.hasPrefix("."), !job.fileName.contains("/") else { continue }
                let path = directory + "/" + job.fileName
                if let existing = SmallFile.read(path, limit: 64 << 10), let problem = overwriteProblem(existing, job, path: path) {
                    context.err("agentctl: " + context.errorStyle.error(problem))
                    continue
                }
                try FileSystem.writeFile(path, Array(job.text.utf8), mode: 0o644)
                context.out("wrote \(path)")
                written.append(job)
            }
        } catch {
            throw CommandFailure(exitStatus: 1, message: "writing into \(directory): \(error)")
        }
        return written
    }

    /// Why `existing` (the file at `path`) must not be replaced by `job`, or nil when it is the
    /// same job converted again.
    static func overwriteProblem(_ existing: String, _ job: ConvertedJob, path: String) -> String? {
        let header = ConvertedJob.header(job.fileName)
        let firstLine = existing.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard firstLine.hasPrefix(header) else {
            return "not written: \(path) is there already, and agentctl convert did not write it; move it away, or give another --output-dir"
        }
        let sources = firstLine.dropFirst(header.count)
        let source = job.sources.first ?? ""
        if sources == source || sources.hasPrefix(source + " and ") || sources.hasPrefix(source + ", ") { return nil }
        let other = String(sources.split(separator: " and ").first?.split(separator: ", ").first ?? sources)
        return "not written: \(path) is there already, converted from \(other), not \(source); convert both in one "
            + "agentctl convert (jobs of one name are then named apart by where they come from), or give another --output-dir"
    }
}

/// What converting every argument gave.
struct ConvertOutcome {
    var jobs: [ConvertedJob] = []
    var failures: [String] = []
    var notes: [String] = []
    /// What the jobs replace: `systemctl disable --now X.timer`, `comment out line 3 of /etc/cron.d/x`.
    var replaced: [ConvertReplacement] = []
}
