// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Why the config watcher could not start.
public struct ConfigWatcherError: Error, Sendable, CustomStringConvertible {
    /// One line saying what failed and on which path.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
