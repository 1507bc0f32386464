import AgentCore
import AgentProtocol
import AgentSystem
import Glibc

/// `agentctl check [DIR]`: validates a config directory offline, like `nginx -t`, printing every
/// error and warning. Exit 1 when there is any error.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check", abstract: "Validate a config directory offline and print every problem.",
        discussion: "Reads agentd.conf, manifests.d/ and jobs.d/ exactly as agentd would, without talking to it.\nExits 1 when any file has an error.",
        examples: ["agentctl check", "agentctl check ./etc/agentd"],
        options: [jsonOption],
        arguments: [ArgumentSpec(name: "DIR", help: "Config directory (default /etc/agentd).", isOptional: true)],
        run: { parsed, context in
            let directory = parsed.argument(0) ?? "/etc/agentd"
            var info = stat()
            guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw CommandFailure(exitStatus: 1, message: "\(directory) is not a directory (give the config directory, e.g. /etc/agentd)")
            }
            let user = SystemFactsProbe.currentUser()
            var loader = ConfigLoader(configDirectory: directory, agentUID: user.uid,
                                      agentUserName: user.name, privileged: geteuid() == 0)
            _ = loader.loadAll()
            let registry = loader.registry
            let diagnostics = registry.diagnostics
            let errors = diagnostics.filter { $0.severity == .error }.count
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(CheckReport(
                    directory: directory, manifests: registry.manifestCount, jobs: registry.jobCount,
                    diagnostics: diagnostics)))
            } else {
                for diagnostic in diagnostics { context.out(diagnostic.description) }
                let warnings = diagnostics.count - errors
                context.out("\(directory): \(registry.manifestCount) manifests, \(registry.jobCount) jobs, \(errors) errors, \(warnings) warnings")
            }
            return errors == 0 ? 0 : 1
        })
}

/// `agentctl check --json` output.
struct CheckReport: Codable {
    var directory: String
    var manifests: Int
    var jobs: Int
    var diagnostics: [ConfigDiagnostic]
}
