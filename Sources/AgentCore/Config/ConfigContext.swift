// SPDX-License-Identifier: Apache-2.0
/// Who the agent is and where its config lives: what validation needs beyond the file itself.
public struct ConfigContext: Sendable, Hashable {
    /// Absolute config directory (`/etc/agentd`), used to name files in advice and to give a
    /// drop-in script its absolute `Exec=` path.
    public var configDirectory: String
    /// The agent's uid; files and plugins must be owned by root or by it.
    public var agentUID: UInt32
    public var agentUserName: String
    /// Whether the agent can run jobs as other users (runs as root).
    public var privileged: Bool
    /// Whether diagnostics may quote files that not everyone can read: yes for `agentctl check`
    /// (its user has just read them), no for the agent, whose diagnostics every reader of the
    /// control socket sees (`DiagnosticRedaction`).
    public var quotesPrivateFiles: Bool
    /// The zones `Schedule=` may name (`09:00 Europe/Berlin`): the shell's zone files.
    public var zones: ZoneLookup = .none

    public init(configDirectory: String = "/etc/agentd", agentUID: UInt32,
                agentUserName: String, privileged: Bool, quotesPrivateFiles: Bool = false)
    {
        self.configDirectory = configDirectory
        self.agentUID = agentUID
        self.agentUserName = agentUserName
        self.privileged = privileged
        self.quotesPrivateFiles = quotesPrivateFiles
    }

    /// The absolute path of a file given relative to the config directory.
    public func absolutePath(of relativePath: String) -> String {
        var base = configDirectory
        while base.utf8.count > 1, base.utf8.last == TextBytes.slash { base.removeLast() }
        if base == "/" { return "/" + relativePath }
        return base + "/" + relativePath
    }
}
