// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentPOSIX
import Glibc

/// `agentctl check [DIR]`: validates a config directory offline, like `nginx -t`, printing every
/// error and warning. Exit 1 when there is any error.
enum CheckCommand {
    static let defaultDirectory = "/etc/agentd"

    /// What to try instead of a directory that could not be read: never the path that just
    /// failed.
    static func advice(for directory: String) -> String {
        if directory == defaultDirectory {
            return "is agentd installed? Give the config directory to check, e.g. agentctl check ./etc/agentd"
        }
        return "give the config directory, the one holding agentd.conf, manifests.d/ and jobs.d/, e.g. agentctl check /etc/agentd"
    }

    static let spec = CommandSpec(
        name: "check", abstract: "Validate a config directory offline and print every problem.",
        discussion: "Reads agentd.conf, manifests.d/ and jobs.d/ exactly as agentd would, without talking to it.\nExits 1 when any file has an error.",
        examples: ["agentctl check", "agentctl check ./etc/agentd"],
        options: [jsonOption],
        arguments: [ArgumentSpec(name: "DIR", help: "Config directory (default /etc/agentd).", isOptional: true)],
        run: { parsed, context in
            let directory = parsed.argument(0) ?? defaultDirectory
            var info = stat()
            guard stat(directory, &info) == 0 else {
                let reason = SystemError.text(errno)
                throw CommandFailure(exitStatus: 1, message: "cannot read \(directory): \(reason) (\(Self.advice(for: directory)))")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw CommandFailure(exitStatus: 1, message: "\(directory) is not a directory (\(Self.advice(for: directory)))")
            }
            // A directory with neither subdirectory is not a config directory (`check /etc`):
            // "0 manifests, 0 jobs, 0 errors" would read as a pass.
            let hasConfig = ["manifests.d", "jobs.d"].contains { name in
                var sub = stat()
                return stat(directory + "/" + name, &sub) == 0 && sub.st_mode & S_IFMT == S_IFDIR
            }
            guard hasConfig else {
                throw CommandFailure(exitStatus: 1, message: "\(directory) has neither manifests.d/ nor jobs.d/, so it is not an agentd config directory (\(Self.advice(for: directory)))")
            }
            let user = SystemFactsProbe.currentUser()
            // Quoting every file is safe here: only what this user could read was read.
            var loader = ConfigLoader(configDirectory: directory, agentUID: user.uid,
                                      agentUserName: user.name, privileged: geteuid() == 0,
                                      quotesPrivateFiles: true)
            _ = loader.loadAll()
            let registry = loader.registry
            let report = CheckReport(directory: directory, manifests: registry.manifestCount, jobs: registry.jobCount,
                                     diagnostics: loader.directoryErrors() + loader.directoryWarnings() + registry.diagnostics
                                         + BudgetCheck.warnings(registry)
                                         + ChainTargetCheck.warnings(registry)
                                         + PastScheduleCheck.warnings(registry, now: SchedulerTime(seconds: Double(context.now)),
                                                                      rule: DisplayZoneRule(zone: context.clock.zone)))
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(report))
            } else {
                context.out(render(report, style: context.style))
            }
            return report.errorCount == 0 ? 0 : 1
        })

    /// Every diagnostic on its own line (`path:line: message`, as compilers print them, so editors
    /// can jump to it), then a summary: green when there is no error, red otherwise.
    static func render(_ report: CheckReport, style: Style) -> String {
        var lines = report.diagnostics.map { line($0, style: style) }
        let errors = report.errorCount
        let warnings = report.diagnostics.filter { $0.severity == .warning }.count
        let summary = "\(report.directory): \(DisplayText.plural(report.manifests, "manifest")), \(DisplayText.plural(report.jobs, "job")), "
            + "\(DisplayText.plural(errors, "error")), \(DisplayText.plural(warnings, "warning"))"
        lines.append(style.apply(errors > 0 ? .error : .success, summary))
        if errors > 0 {
            lines.append(style.dim("Fix the files above; a running agentd picks up the changes by itself."))
        }
        return lines.joined(separator: "\n")
    }

    /// One diagnostic, red for an error and yellow for a warning.
    static func line(_ diagnostic: ConfigDiagnostic, style: Style) -> String {
        style.apply(diagnostic.severity == .error ? .error : diagnostic.severity == .warning ? .warning : nil, DisplayText.sanitized(diagnostic.description))
    }
}

/// `agentctl check --json` output.
struct CheckReport: Codable {
    var directory: String
    var manifests: Int
    var jobs: Int
    var diagnostics: [ConfigDiagnostic]

    // Named as in `status --json` (docs/json.md: one name for one thing).
    enum CodingKeys: String, CodingKey {
        case directory = "configDirectory", manifests = "manifestCount", jobs = "jobCount", diagnostics
    }

    var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
}
