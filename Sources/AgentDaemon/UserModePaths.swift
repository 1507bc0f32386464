// SPDX-License-Identifier: Apache-2.0
/// Where `agentd --user` keeps things (DESIGN §2), from the XDG Base Directory variables: config
/// `$XDG_CONFIG_HOME/agentd` (`~/.config/agentd`), state `$XDG_STATE_HOME/agentd`
/// (`~/.local/state/agentd`), socket `$XDG_RUNTIME_DIR/agentd.sock`, and the read-only
/// `agentd` directories of `$XDG_DATA_DIRS` (`/usr/local/share:/usr/share`). As the XDG spec
/// says, a relative path in a variable is ignored. Pure: the environment is given.
enum UserModePaths {
    static let defaultDataDirectories = "/usr/local/share:/usr/share"

    /// Fills in every path `--user` decides that the command line did not give (`given` holds
    /// the option names seen).
    static func apply(to options: inout DaemonOptions, environment: [String: String],
                      given: Set<String>) throws(DaemonOptionsError) {
        if !given.contains("--config-dir") {
            options.configDirectory = try base("XDG_CONFIG_HOME", home: ".config", environment) + "/agentd"
        }
        if !given.contains("--state-dir") {
            options.stateDirectory = try base("XDG_STATE_HOME", home: ".local/state", environment) + "/agentd"
        }
        if !given.contains("--socket") {
            guard let runtime = absolute(environment["XDG_RUNTIME_DIR"]) else {
                throw DaemonOptionsError(message: "agentd --user: XDG_RUNTIME_DIR is not set (or not an absolute path), so there is no place for the control socket; start it as the user unit (systemctl --user start agentd), which has it, or set XDG_RUNTIME_DIR=/run/user/$(id -u), or give --socket PATH")
            }
            options.socketPath = runtime + "/agentd.sock"
        }
        options.dataDirectories = dataDirectories(environment)
        options.applicationDirectories = applicationDirectories(environment)
        if let path = environment["PATH"], !path.isEmpty { options.searchPath = path }
    }

    /// `$XDG_DATA_HOME/applications` (else `~/.local/share/applications`), then the
    /// `applications` directory of each `$XDG_DATA_DIRS` entry: the Desktop Entry
    /// Specification's search order for `.desktop` files.
    static func applicationDirectories(_ environment: [String: String]) -> [String] {
        var bases: [String] = []
        if let home = absolute(environment["XDG_DATA_HOME"]) {
            bases.append(home)
        } else if let home = absolute(environment["HOME"]) {
            bases.append((home == "/" ? "" : home) + "/.local/share")
        }
        let list = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultDataDirectories
        bases += list.split(separator: ":").compactMap { absolute(String($0)) }
        var seen: Set<String> = []
        return bases.map { ($0 == "/" ? "" : $0) + "/applications" }.filter { seen.insert($0).inserted }
    }

    /// `$NAME`, else `$HOME/home`.
    private static func base(_ name: String, home: String, _ environment: [String: String])
        throws(DaemonOptionsError) -> String {
        if let path = absolute(environment[name]) { return path }
        guard let directory = absolute(environment["HOME"]) else {
            throw DaemonOptionsError(message: "agentd --user: neither \(name) nor HOME is set to an absolute path; set HOME (or \(name)), or give --config-dir DIR and --state-dir DIR")
        }
        return (directory == "/" ? "" : directory) + "/" + home
    }

    /// The `agentd` directory of each `$XDG_DATA_DIRS` entry, in order, without repeats.
    static func dataDirectories(_ environment: [String: String]) -> [String] {
        let list = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultDataDirectories
        var seen: Set<String> = []
        var result: [String] = []
        for entry in list.split(separator: ":") {
            guard let path = absolute(String(entry)) else { continue }
            let directory = (path == "/" ? "" : path) + "/agentd"
            if seen.insert(directory).inserted { result.append(directory) }
        }
        return result
    }

    /// The value when it is an absolute path, without a trailing slash.
    private static func absolute(_ value: String?) -> String? {
        guard var value, value.hasPrefix("/") else { return nil }
        while value.count > 1, value.hasSuffix("/") { value.removeLast() }
        return value
    }
}
