// SPDX-License-Identifier: Apache-2.0
/// An error or warning about a config file, always naming the file and, where known, the line:
/// `jobs.d/backup.job:4: Interval: "1x" is not a time span (examples: 30s, 5min, 12h, 1d)`.
public struct ConfigDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error
        case warning
        /// Context for an error, counted as neither an error nor a warning (so `status` and
        /// `check` count alike): "the last good version of this file stays in force".
        case note
    }

    /// Path relative to the config directory (`jobs.d/backup.job`).
    public var path: String
    public var line: Int?
    public var severity: Severity
    public var message: String

    public init(path: String, line: Int? = nil, severity: Severity = .error, message: String) {
        self.path = path
        self.line = line
        self.severity = severity
        self.message = message
    }

    public var description: String {
        let location = line.map { "\(path):\($0)" } ?? path
        switch severity {
        case .error: return "\(location): \(message)"
        case .warning: return "\(location): warning: \(message)"
        case .note: return "\(location): note: \(message)"
        }
    }
}
