// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Small file-system helpers for the daemon's start-up and for agentctl: `mkdir -p`, path parts,
/// writing a whole small file.
public enum FileSystem {
    /// `mkdir -p` with exactly `mode` for the directories it creates, whatever the umask (under
    /// agentd.service's UMask=0027 a per-job directory's parents must stay traversable).
    public static func makeDirectories(_ path: String, mode: mode_t) throws(SystemError) {
        // The usual case (a job's first run: only the last directory is missing) costs one mkdir,
        // not one per component from the root.
        if mkdir(path, mode) == 0 {
            chmod(path, mode)
            return
        }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) == 0 {
                chmod(current, mode)
            } else if errno != EEXIST {
                throw SystemError.last("mkdir", path: current)
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw SystemError(call: "mkdir", errno: ENOTDIR, path: path)
        }
    }

    /// Whether `path` is a directory (following links) owned by `owner`, or of any owner when
    /// `owner` is nil.
    public static func isOwnedDirectory(_ path: String, owner: (uid: uid_t, gid: gid_t)?) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            && (owner.map { info.st_uid == $0.uid && info.st_gid == $0.gid } ?? true)
    }

    /// When `path`'s inode last changed (ctime: a directory's changes with every entry made or
    /// removed in it), in milliseconds since the epoch; nil when it cannot be read.
    public static func changeTimeMilliseconds(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_ctim.tv_sec) * 1000 + Int64(info.st_ctim.tv_nsec) / 1_000_000
    }

    /// What is at `path` itself, a symbolic link not followed.
    public enum Entry: Equatable {
        case missing
        /// `mode`: its permission bits.
        case directory(uid: uid_t, gid: gid_t, mode: mode_t)
        case symbolicLink
        /// A file, device, socket…: anything else.
        case other
    }

    public static func entry(at path: String) -> Entry {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory(uid: info.st_uid, gid: info.st_gid, mode: info.st_mode & 0o7777)
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// Removes a file; false when there was none or it could not be removed.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` made absolute against the working directory (`agentctl check DIR` and `convert DIR`
    /// may name a relative directory); a leading `./` is dropped.
    public static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" + path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        return (directory.hasSuffix("/") ? directory : directory + "/") + relative
    }

    /// The last path component (`apt-daily.timer`).
    public static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Creates or truncates `path` with `mode` and writes `bytes` to it.
    public static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw SystemError.last("create", path: path) }
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
    }

    /// Writes all of `bytes` to `fd` (retrying short writes and EINTR); `path` names it in the error.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError.last("write", path: path)
            }
            offset += written
        }
    }
}
