// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A system call that failed: which call, on what, and the errno it gave. One type for every
/// adapter (the loop and its sources, netlink, processes and cgroups, files), so every such
/// failure reads the same: `mkdir /sys/fs/cgroup/…/run-r000001: Permission denied`.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call as a reader would name it (`mkdir`, `open cgroup.procs`, `write cgroup.kill`).
    public var call: String
    public var errno: Int32
    /// The file or directory it was made on, if any.
    public var path: String?

    public init(call: String, errno: Int32, path: String? = nil) {
        self.call = call
        self.errno = errno
        self.path = path
    }

    /// With the `errno` of the call that just failed.
    public static func last(_ call: String, path: String? = nil) -> SystemError {
        SystemError(call: call, errno: Glibc.errno, path: path)
    }

    /// `strerror(3)` text for an errno value (glibc's strings for known values are constant;
    /// the text is copied at once).
    public static func text(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    public var description: String {
        let reason = Self.text(errno)
        guard let path else { return "\(call): \(reason)" }
        return "\(call) \(path): \(reason)"
    }
}
