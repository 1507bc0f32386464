// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore

/// A table-driven stand-in for the file system and user database.
struct FakeFacts: SystemFacts {
    var plugins: [String: PluginStatus] = [:]
    var users: Set<String> = ["root", "nobody", "photos", "alice"]
    /// Unlisted absolute paths under /usr/lib/agentd/plugins/ are fine plugins, so tests need
    /// not list every one.
    var pluginsPresentByDefault = true

    func plugin(at path: String) -> PluginStatus {
        if let status = plugins[path] { return status }
        if pluginsPresentByDefault, path.hasPrefix("/usr/lib/agentd/plugins/") || path.hasPrefix("/etc/agentd/") {
            return .present(FileFacts(ownerUID: 0, mode: 0o100755), executable: true)
        }
        return .missing
    }

    var userNames: [UInt32: String] = [0: "root", 65534: "nobody", 1000: "alice"]
    /// What `MemoryMax=50%` and `TasksMax=10%` are shares of.
    var memory: ByteSize? = ByteSize(bytes: 16 << 30)
    var tasksLimit: Int? = 32767

    func userExists(_ name: String) -> Bool { users.contains(name) }
    func userName(uid: UInt32) -> String? { userNames[uid] }
    func physicalMemory() -> ByteSize? { memory }
    func systemTasksMax() -> Int? { tasksLimit }
}

let rootFile = FileFacts(ownerUID: 0, mode: 0o100644)
let rootScript = FileFacts(ownerUID: 0, mode: 0o100755)

func source(_ path: String, _ text: String, facts: FileFacts = rootFile) -> ConfigSource {
    ConfigSource(relativePath: path, bytes: Array(text.utf8), facts: facts)
}

let privilegedContext = ConfigContext(agentUID: 0, agentUserName: "root", privileged: true)
let unprivilegedContext = ConfigContext(configDirectory: "/home/alice/agentd", agentUID: 1000,
                                        agentUserName: "alice", privileged: false)

func id(_ raw: String) -> Identifier {
    guard let value = Identifier(rawValue: raw) else { fatalError("bad test identifier \(raw)") }
    return value
}

/// Parses a `.job` file text as `jobs.d/test.job`.
func parseJob(_ text: String, context: ConfigContext = privilegedContext,
              facts: FakeFacts = FakeFacts()) -> ConfigParseResult<JobDefinition>
{
    JobDefinition.parse(Array(text.utf8), path: "jobs.d/test.job", context: context, facts: facts)
}

/// A minimal valid job file with extra lines appended to [Job].
func jobText(_ identifier: String = "com.example.test", kind: String? = nil, _ extra: String = "") -> String {
    var text = "[Job]\nIdentifier=\(identifier)\nExec=/usr/lib/agentd/plugins/test\n"
    if let kind { text += "Kind=\(kind)\n" }
    return text + extra
}

/// The messages of a result's diagnostics, as printed.
func printed(_ diagnostics: [ConfigDiagnostic]) -> [String] { diagnostics.map(\.description) }

let localManifest = "[Manifest]\nPermittedIdentifiers=local.* com.example.*\nBackgroundModes=refresh processing continued\n"

func registryWithManifest(privileged: Bool = true) -> ConfigRegistry {
    var registry = privileged
        ? ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        : ConfigRegistry(agentUID: 1000, agentUserName: "alice", privileged: false,
                         configDirectory: "/home/alice/agentd")
    _ = registry.update(source("manifests.d/local.manifest", localManifest), facts: FakeFacts())
    return registry
}
