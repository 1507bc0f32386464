// SPDX-License-Identifier: Apache-2.0
/// A job file (`.job` or drop-in script) whose latest version was refused, so that it does not
/// vanish: `list` shows it as `error (jobs.d/x.job:4)`, and `explain` or `simulate launch` of its
/// identifier say the file has errors and where.
public struct JobFileWithErrors: Hashable, Sendable {
    /// The identifier it names, when the file got that far (a drop-in's is its file name's).
    public var identifier: Identifier?
    /// Relative to the config directory (`jobs.d/backup.job`).
    public var sourcePath: String
    /// Its first error.
    public var error: ConfigDiagnostic
    /// The plugin it names (absolute), to notice when it is installed or made executable.
    public var plugin: String?
    /// Whether an earlier good version of the file is in force (and listed instead).
    public var hasVersionInForce: Bool
    /// Who may read the file (DESIGN §9: a reader sees what it would tell them if they could read
    /// it), as for a file in force; nil when unknown.
    public var file: JobFileFacts?

    public init(identifier: Identifier?, sourcePath: String, error: ConfigDiagnostic,
                plugin: String?, hasVersionInForce: Bool, file: JobFileFacts? = nil)
    {
        self.identifier = identifier
        self.sourcePath = sourcePath
        self.error = error
        self.plugin = plugin
        self.hasVersionInForce = hasVersionInForce
        self.file = file
    }

    /// `jobs.d/x.job:4`: where its first error is.
    public var location: String {
        error.line.map { "\(error.path):\($0)" } ?? error.path
    }

    /// The state `list` shows: `error (jobs.d/x.job:4)`.
    public var stateText: String { "error (\(location))" }

    /// What `explain` and `simulate launch` say about its identifier.
    public var explanation: String {
        "\(sourcePath) has errors (\(error.description)); fix them (agentctl check lists them all) "
            + "and agentd loads it by itself"
    }
}
