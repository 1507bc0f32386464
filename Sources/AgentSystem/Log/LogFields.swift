// SPDX-License-Identifier: Apache-2.0
/// Structured journal fields of one log line: `journalctl AGENTD_IDENTIFIER=…`,
/// `journalctl MESSAGE_ID=…`. On stderr (no journal) they are not written: the line says it all.
public struct LogFields: Sendable, Hashable {
    public var messageID: LogMessageID?
    /// `AGENTD_IDENTIFIER=`: the run's identifier (a submission's own, dynamic one included).
    public var identifier: String?
    /// `AGENTD_RUN_ID=`: `r000042`.
    public var runID: String?
    /// `AGENTD_STOP_REASON=`: the DESIGN §7 text, `failure(exit 3)`, `expired(max-runtime)`…
    public var stopReason: String?

    public init(_ messageID: LogMessageID? = nil, identifier: String? = nil, runID: String? = nil,
                stopReason: String? = nil) {
        self.messageID = messageID
        self.identifier = identifier
        self.runID = runID
        self.stopReason = stopReason
    }

    public static let none = LogFields()

    /// `NAME=value` lines, in a fixed order; empty when no field is set.
    public var journalFields: [String] {
        var fields: [String] = []
        if let messageID { fields.append("MESSAGE_ID=\(messageID.rawValue)") }
        if let identifier { fields.append("AGENTD_IDENTIFIER=\(identifier)") }
        if let runID { fields.append("AGENTD_RUN_ID=\(runID)") }
        if let stopReason { fields.append("AGENTD_STOP_REASON=\(stopReason)") }
        return fields
    }
}

/// `MESSAGE_ID=` per event kind: fixed 128-bit ids, generated once (never change them: alerts
/// and saved journal queries name them). docs/fleet.md lists them.
public enum LogMessageID: String, Sendable, CaseIterable {
    case runStarted = "10921d5ab3e64916b415d4ecdf125067"
    case runEnded = "96b664571be54d06981768a608fc2305"
    case runExpired = "e4b8bc59ac6540559c745fd80f86e753"
    case configError = "df5ae662d13e44b59e488883abe19d7d"
    /// A line a plugin wrote (stdout or stderr) that is not a directive.
    case pluginOutput = "b19063d34c514d7fb3f548b19ddeb2c9"
}
