// SPDX-License-Identifier: Apache-2.0
/// One `Exec=` line of a job: the commands of a run are its `Exec=` lines in order, as a
/// oneshot service's `ExecStartPre=`/`ExecStart=`/`ExecStartPost=` (DESIGN §3).
public struct ExecCommand: Hashable, Sendable {
    /// argv; `argv[0]` is an absolute path. `$VAR`/`${VAR}` are kept as written and expanded at
    /// each spawn (`ExecExpansion`), since `EnvironmentFile=` is read then.
    public var argv: [String]
    /// The line started with `-`: its failure does not end the run (systemd's prefix).
    public var mayFail: Bool

    public init(argv: [String], mayFail: Bool = false) {
        self.argv = argv
        self.mayFail = mayFail
    }
}
