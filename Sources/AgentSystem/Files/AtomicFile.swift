// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Replaces a file so that a reader sees the old contents or the new, never a part: a temp file
/// beside it (`PATH.tmp`, a name node_exporter's `*.prom` glob skips), fsync, rename, fsync of
/// the directory.
public enum AtomicFile {
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(SystemError) {
        let temp = path + ".tmp"
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw SystemError.last("create", path: temp) }
        var done = false
        defer {
            if !done { unlink(temp) }
        }
        do {
            defer { close(fd) }
            try FileSystem.writeAll(fd, bytes, path: temp)
            // The mode asked for, not the umask's cut of it: node_exporter reads as its own user.
            guard fchmod(fd, mode) == 0 else { throw SystemError.last("fchmod", path: temp) }
            guard fsync(fd) == 0 else { throw SystemError.last("fsync", path: temp) }
        }
        guard rename(temp, path) == 0 else { throw SystemError.last("rename \(temp) to", path: path) }
        done = true
        let directory = open(FileSystem.parentDirectory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

}
