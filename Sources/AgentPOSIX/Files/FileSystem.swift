// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Small file-system helpers for the daemon's start-up and for agentctl: `mkdir -p`, path parts,
/// writing a whole small file.
public enum FileSystem {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        // AgentSystem's AtomicFile reports its failures as this type too.
        package init(description: String) {
            self.description = description
        }
    }

    /// `mkdir -p` with exactly `mode` for the directories it creates, whatever the umask (under
    /// agentd.service's UMask=0027 a per-job directory's parents must stay traversable).
    public static func makeDirectories(_ path: String, mode: mode_t) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) == 0 {
                chmod(current, mode)
            } else if errno != EEXIST {
                throw Failure(description: "cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(description: "\(path) is not a directory")
        }
    }

    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last path component (`apt-daily.timer`).
    public static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Creates or truncates `path` with `mode` and writes `bytes` to it.
    public static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}
