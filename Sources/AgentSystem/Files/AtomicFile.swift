// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Replaces a file so that a reader sees the old contents or the new, never a part: a temp file
/// beside it (`PATH.tmp`, a name node_exporter's `*.prom` glob skips), fsync, rename, fsync of
/// the directory.
public enum AtomicFile {
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws {
        let temp = path + ".tmp"
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw failure("cannot create", temp) }
        var done = false
        defer {
            if !done { unlink(temp) }
        }
        do {
            defer { close(fd) }
            try writeAll(fd, bytes, temp)
            // The mode asked for, not the umask's cut of it: node_exporter reads as its own user.
            guard fchmod(fd, mode) == 0 else { throw failure("cannot chmod", temp) }
            guard fsync(fd) == 0 else { throw failure("cannot fsync", temp) }
        }
        guard rename(temp, path) == 0 else { throw failure("cannot rename \(temp) to", path) }
        done = true
        let directory = open(FileSystem.parentDirectory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write", path)
            }
            offset += written
        }
    }

    private static func failure(_ what: String, _ path: String) -> FileSystem.Failure {
        FileSystem.Failure(description: "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
