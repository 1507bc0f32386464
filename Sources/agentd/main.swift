// SPDX-License-Identifier: Apache-2.0
import AgentDaemon
import AgentProtocol
import AgentSystem
import Glibc

// agentd: parse the command line, then hand over to the agent's event loop. `main` stays
// synchronous so the loop runs on the main thread, which has the daemon's signals blocked.

func printError(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The environment, for `--user`'s XDG paths.
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer = pointer.advanced(by: 1)
    }
    return result
}

/// The working directory relative paths on the command line are read from.
func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "/" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch try DaemonOptions.parse(arguments, environment: processEnvironment(), currentDirectory: currentDirectory()) {
    case .help:
        print(DaemonOptions.usage, terminator: "")
    case .version:
        print("agentd \(AgentVersion.string)")
    case .run(let options):
        // The per-user agent runs every job as its user; root's jobs belong to the system agent.
        if options.userMode && geteuid() == 0 {
            printError("agentd: --user is the per-user agent of an unprivileged user and runs every job as that user; as root, run the system agent instead (systemctl start agentd.service), or start agentd --user as the user (systemctl --user start agentd)")
            exit(2)
        }
        // Early, before any descriptor is opened: runs and control clients share the limit.
        OpenFileLimit.raiseSoftToHard()
        if options.userMode {
            // The user's state is the user's alone (plugins get umask 022 back before exec).
            umask(0o077)
        }
        // One agent per state directory: a second one refuses before it touches anything. A
        // system agent whose state directory cannot be made (a file in its place) still runs,
        // says so in status and retries (DESIGN §10): it has no lock to take until then.
        var lock: InstanceLock?
        do {
            lock = try InstanceLock.acquire(in: options.stateDirectory, mode: options.userMode ? 0o700 : 0o755)
        } catch let error as InstanceLock.Held {
            if options.userMode {
                printError("agentd --user: already running for this user: \(error); stop it first (systemctl --user stop agentd) or give this one a state directory and a socket of its own (--state-dir DIR --socket PATH)")
            } else {
                printError("agentd: already running on \(options.stateDirectory): \(error); stop it first (systemctl stop agentd) or give this one a state directory and a socket of its own (--state-dir DIR --socket PATH)")
            }
            exit(1)
        } catch where !options.userMode {
            lock = nil
        }
        let agent = try Agent(options: options)
        try withExtendedLifetime(lock) { try agent.run() }
    }
} catch let error as DaemonOptionsError {
    printError("agentd: \(error)")
    exit(2)
} catch {
    printError("<3>agentd: \(error)")
    exit(1)
}
