// SPDX-License-Identifier: Apache-2.0
/// agentd's command line (DESIGN §2): every path can be overridden so the agent also runs
/// unprivileged for tests, demos and per-user agents.
public struct DaemonOptions: Sendable, Equatable {
    public var configDirectory = "/etc/agentd"
    public var stateDirectory = "/var/lib/agentd"
    public var socketPath = "/run/agentd/agentd.sock"
    public var sysfsRoot = "/sys"
    public var procRoot = "/proc"
    /// `--system-bus ADDRESS`: the D-Bus system bus logind, NetworkManager and
    /// power-profiles-daemon are read from (one connection); nil: the system bus
    /// (`DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket), and none on a simulated
    /// machine unless this is given.
    public var systemBusAddress: String?
    /// `--simulated-machine`: the machine is the fake trees under `--sysfs-root`/`--proc-root`;
    /// logind, power-profiles-daemon and NetworkManager on the real system bus are not consulted
    /// (they describe another machine), only on a `--system-bus` given.
    public var simulatedMachine = false
    /// Prefix log lines with CLOCK_MONOTONIC time (benchmarks correlate events with it).
    public var logTimestamps = false
    /// `--bench-probes`: log what benchmarks measure — each scheduler decision's duration, each
    /// teardown step's lateness, each sysfs re-read. Off in service: a line per decision.
    public var benchProbes = false
    /// `--user`: the per-user agent (XDG paths, socket 0600, desktop notifications).
    public var userMode = false
    /// `--user`: the read-only `agentd` directories of `$XDG_DATA_DIRS`, in search order.
    public var dataDirectories: [String] = []
    /// `--user`: where `DesktopEntry=` files are looked for, in order: `$XDG_DATA_HOME/applications`
    /// (`~/.local/share/applications`), then each `$XDG_DATA_DIRS` entry's `applications`.
    public var applicationDirectories: [String] = []
    /// `--user`: the `PATH` `xdg-open` is found on (a result's Open action).
    public var searchPath = "/usr/local/bin:/usr/bin:/bin"

    public init() {}

    /// What `parse` decided.
    public enum Outcome: Equatable {
        case run(DaemonOptions)
        case help
        case version
    }

    public static let usage = """
        Usage: agentd [options]

        Runs the background-task agent in the foreground (systemd starts it as agentd.service).

        Options:
          --user             the per-user agent: config $XDG_CONFIG_HOME/agentd, state
                             $XDG_STATE_HOME/agentd, socket $XDG_RUNTIME_DIR/agentd.sock
          --config-dir DIR   config directory to watch (default /etc/agentd)
          --state-dir DIR    state database and per-job directories (default /var/lib/agentd)
          --socket PATH      control socket (default /run/agentd/agentd.sock)
          --sysfs-root DIR   where /sys is (tests point this at a fake tree)
          --proc-root DIR    where /proc is
          --system-bus ADDR  D-Bus address logind, NetworkManager and power profiles are
                             read from (tests use a private bus)
          --simulated-machine  the machine is the --sysfs-root/--proc-root trees: the real
                             system bus (logind, power profiles, NetworkManager) is not consulted
          --log-timestamps   prefix log lines with monotonic time
          --bench-probes     log decision times, teardown lateness and sysfs re-reads
                             (for bench/)
          --version          print the version and exit
          -h, --help         show this help

        """

    /// Parses `arguments` (without the program name); `environment` gives `--user` its XDG
    /// paths. Errors name the option and the fix.
    /// Relative paths are taken from `currentDirectory` (the process's working directory) at
    /// once: the agent's checks walk every directory above a file from `/`.
    public static func parse(_ arguments: [String], environment: [String: String] = [:],
                             currentDirectory: String = "/")
        throws(DaemonOptionsError) -> Outcome {
        var options = DaemonOptions()
        var given: Set<String> = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() throws(DaemonOptionsError) -> String {
                if let inline { return inline }
                guard let next = rest.popFirst(), !next.isEmpty else {
                    throw DaemonOptionsError(message: "option \(name) needs a value")
                }
                return next
            }
            if name.hasPrefix("--") { given.insert(name) }
            switch name {
            case "--user": options.userMode = true
            case "--config-dir": options.configDirectory = absolute(try value(), from: currentDirectory)
            case "--state-dir": options.stateDirectory = absolute(try value(), from: currentDirectory)
            case "--socket": options.socketPath = absolute(try value(), from: currentDirectory)
            case "--sysfs-root": options.sysfsRoot = absolute(try value(), from: currentDirectory)
            case "--proc-root": options.procRoot = absolute(try value(), from: currentDirectory)
            case "--system-bus": options.systemBusAddress = try value()
            case "--simulated-machine": options.simulatedMachine = true
            case "--log-timestamps": options.logTimestamps = true
            case "--bench-probes": options.benchProbes = true
            case "--version": return .version
            case "-h", "--help": return .help
            default:
                throw DaemonOptionsError(message: "unknown option '\(argument)' (see agentd --help)")
            }
        }
        if options.userMode {
            try UserModePaths.apply(to: &options, environment: environment, given: given)
        }
        return .run(options)
    }

    static func absolute(_ path: String, from directory: String) -> String {
        if path.hasPrefix("/") { return path }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return path == "." ? directory : base + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}

/// A bad agentd command line.
public struct DaemonOptionsError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
