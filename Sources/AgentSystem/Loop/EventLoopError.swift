// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A system call made on behalf of the event loop or one of its sources failed.
public struct EventLoopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The failing call, e.g. `"epoll_ctl(ADD)"`.
    public let call: String
    /// The `errno` it left.
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call) failed: \(EventLoopError.describe(errno: errno)) (errno \(errno))"
    }

    /// `strerror(3)` text for an errno value.
    static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
