// SPDX-License-Identifier: Apache-2.0
/// The environment cron or anacron gives the commands below a crontab's `NAME=VALUE` lines:
/// its defaults, each replaced by a later assignment of the same name, then new names in the
/// order they were assigned. Callers leave out the variables the program reads for itself
/// (`MAILTO`).
public struct CronEnvironment: Sendable, Equatable {
    public struct Variable: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// cron's own: HOME, LOGNAME and USER come from the passwd entry, as agentd sets them for
    /// every run, so only these two differ from what a run would get without them.
    public static let cron = CronEnvironment([Variable("PATH", "/usr/bin:/bin"), Variable("SHELL", "/bin/sh")])

    public private(set) var variables: [Variable]

    public init(_ variables: [Variable]) {
        self.variables = variables
    }

    public mutating func assign(_ name: String, _ value: String) {
        if let index = variables.firstIndex(where: { $0.name == name }) {
            variables[index].value = value
        } else {
            variables.append(Variable(name, value))
        }
    }

    /// The shell commands run through: `SHELL=` when set, else /bin/sh.
    public var shell: String {
        variables.first { $0.name == "SHELL" && !$0.value.isEmpty }?.value ?? "/bin/sh"
    }

    /// `HOME=` when a line set it: cron starts the commands below it there.
    public var home: String? {
        variables.first { $0.name == "HOME" }?.value
    }

    /// The `Environment=` values that give a run this environment.
    public var environmentLines: [String] {
        variables.map { ExecQuoting.quote("\($0.name)=\($0.value)") }
    }

    /// Debian's cron starts each job from the PAM environment (`/etc/pam.d/cron`: pam_env, which
    /// reads /etc/environment) and sets the crontab's variables over it: a proxy or a locale
    /// set there reached cron's jobs. The file comes first in the job; systemd's rule makes its
    /// variables win over `Environment=`, where cron's crontab won, and the comment says so.
    func write(into job: inout ConvertedJob, underPAM: Bool) {
        if underPAM {
            job.set("EnvironmentFile", "-/etc/environment")
            job.notes.append("cron gave its jobs /etc/environment (pam_env) under the crontab's variables; "
                + "EnvironmentFile= gives it here, over the Environment= lines")
        }
        for line in environmentLines { job.set("Environment", line) }
    }
}
