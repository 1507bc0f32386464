// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import Glibc

/// `agentctl convert FILE…`: systemd `.timer` units (with their `.service`) and cron files
/// (`/etc/cron.d/*`, `/etc/crontab`, or a user's crontab with `--user-crontab`) → job files, on
/// stdout or into `--output-dir`. Each file names what agentd cannot express.
enum ConvertCommand {
    static let spec = CommandSpec(
        name: "convert", abstract: "Turn systemd timers and cron lines into agentd job files.",
        discussion: """
        A FILE ending in .timer is read with its .service (the timer's Unit=, else the same name beside it).
        Any other FILE is a crontab: with a user field when it is /etc/crontab or under a cron.d directory,
        without one with --user-crontab. Every job file says, in comments, what could not be expressed.
        Check the result with agentctl check before dropping it into jobs.d/.
        """,
        examples: ["agentctl convert /lib/systemd/system/apt-daily.timer",
                   "agentctl convert /etc/cron.d/e2scrub_all --output-dir /tmp/converted/jobs.d",
                   "agentctl convert --user-crontab ./my.crontab"],
        options: [OptionSpec(long: "output-dir", valueName: "DIR", help: "Write each job file into DIR instead of printing it."),
                  OptionSpec(long: "prefix", valueName: "PREFIX", help: "Identifier prefix (default local, which local.manifest permits)."),
                  OptionSpec(long: "user-crontab", help: "The files are user crontabs: no user field.")],
        arguments: [ArgumentSpec(name: "FILE", help: "A .timer unit or a crontab.", isRepeated: true)],
        run: { parsed, context in
            let prefix = parsed.value("prefix") ?? "local"
            if let problem = Identifier.problem(with: prefix + ".x") {
                throw UsageError(message: "--prefix: \(problem)", commandPath: ["convert"])
            }
            var jobs: [ConvertedJob] = []
            var failures: [String] = []
            for path in parsed.arguments {
                switch convert(path, prefix: prefix, userCrontab: parsed.flag("user-crontab")) {
                case .success(let converted): jobs += converted.jobs; failures += converted.errors
                case .failure(let failure): failures.append(failure.message)
                }
            }
            for failure in failures { context.err("agentctl: " + context.errorStyle.error(failure)) }
            if let directory = parsed.value("output-dir") {
                try write(jobs, into: directory, context: context)
            } else {
                context.out(jobs.map(\.text).joined(separator: "\n"))
            }
            return failures.isEmpty ? 0 : 1
        })

    struct Failure: Error { var message: String }

    static func convert(_ path: String, prefix: String, userCrontab: Bool) -> Result<(jobs: [ConvertedJob], errors: [String]), Failure> {
        let name = FileSystem.baseName(of: path)
        if name.hasSuffix(".timer") {
            return convertTimer(path, name: String(name.dropLast(6)), prefix: prefix).map { ([$0], []) }
        }
        if name.hasSuffix(".service") {
            return .failure(Failure(message: "\(path): give the .timer that starts it (agentctl convert \(String(path.dropLast(8))).timer)"))
        }
        guard let text = read(path) else { return .failure(Failure(message: "cannot read \(path): \(SystemError.text(errno))")) }
        let withUser = !userCrontab && (name == "crontab" || path.contains("/cron.d/"))
        return .success(CronConverter.convert(text, name: name, source: path, withUser: withUser, prefix: prefix))
    }

    static func convertTimer(_ path: String, name: String, prefix: String) -> Result<ConvertedJob, Failure> {
        if name.hasSuffix("@") {
            return .failure(Failure(message: "\(path) is a template: convert an instance's timer (systemctl cat NAME@INSTANCE.timer > file.timer)"))
        }
        guard let timer = unit(path) else {
            return .failure(Failure(message: "cannot read \(path) as a unit file: \(SystemError.text(errno))"))
        }
        let directory = FileSystem.parentDirectory(of: path)
        let serviceName = timer.entries(in: "Timer").last { $0.key == "Unit" }?.value ?? name + ".service"
        let servicePath = directory + "/" + serviceName
        guard let service = unit(servicePath) else {
            return .failure(Failure(message: "\(path): its service \(servicePath) cannot be read; convert needs both files side by side"))
        }
        return .success(TimerConverter.convert(timer: timer, service: service, name: name, sources: [path, serviceName],
                                               prefix: prefix, resolve: findInPath))
    }

    static func unit(_ path: String) -> UnitFile? {
        guard let text = read(path) else { return nil }
        return UnitFileParser.parse(Array(text.utf8), path: path, expectedSection: "[Timer]").value
    }

    static func read(_ path: String) -> String? {
        SmallFile.read(path, limit: 1 << 20)
    }

    /// Where systemd would find a bare command name.
    static func findInPath(_ name: String) -> String? {
        for directory in ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func write(_ jobs: [ConvertedJob], into directory: String, context: CommandContext) throws {
        do {
            try FileSystem.makeDirectories(directory, mode: 0o755)
            for job in jobs {
                let path = directory + "/" + job.fileName
                try FileSystem.writeFile(path, Array(job.text.utf8), mode: 0o644)
                context.out("wrote \(path)")
            }
        } catch {
            throw CommandFailure(exitStatus: 1, message: "writing into \(directory): \(error)")
        }
    }
}
