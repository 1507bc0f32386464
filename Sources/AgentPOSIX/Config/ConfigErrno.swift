// SPDX-License-Identifier: Apache-2.0
import Glibc

/// errno values as the words an administrator reads in a log line.
package enum ConfigErrno {
    /// `strerror` text for an errno value. glibc returns constant strings for every errno it
    /// knows (only unknown values use a shared buffer), and the text is copied at once.
    package static func text(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
    }
}

/// Why the config watcher could not start.
public struct ConfigWatcherError: Error, Sendable, CustomStringConvertible {
    /// One line saying what failed and on which path.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
