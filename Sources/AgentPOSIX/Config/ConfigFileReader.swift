// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// Reads config files and lists the config directory, for the daemon and `agentctl check`.
///
/// Files are read whole into memory for the pure parser, which applies the syntax rules (so a
/// 1 MiB line is read, and rejected by the parser with its line number, not by the reader).
public enum ConfigFileReader {
    /// The outcome of reading one config file.
    public enum ReadResult: Sendable {
        /// The file's bytes, and the owner and mode of the very file those bytes came from.
        case file(ConfigSource)
        /// No such file (any more): it was removed or renamed away, or its directory was.
        case gone
        /// It exists but cannot be used; `message` says why, without the path (the caller
        /// prefixes the path as `file: message`).
        case unreadable(message: String)
    }

    /// The default limit of `read`: far above any sane config file, low enough that a stray
    /// multi-gigabyte file cannot exhaust the daemon's memory.
    public static let defaultMaxBytes = 16 << 20

    /// Reads `relativePath` (e.g. `jobs.d/backup.job`) under `configDirectory`.
    ///
    /// Symbolic links are followed (a package may link its job file into `jobs.d`); a link loop
    /// and a dangling link are reported as such. The ownership and mode come from `fstat` on the
    /// open descriptor, so they describe the same file the bytes were read from, even if the
    /// name is replaced meanwhile. Only regular files are read: a directory, FIFO, socket or
    /// device is refused (a FIFO is opened non-blocking, so a FIFO without writer cannot hang
    /// the daemon).
    ///
    /// `headLines`: only the file's first lines are wanted (a drop-in script's header): reading
    /// stops after that many, or at `maxBytes`, and a larger file is no error.
    ///
    /// `walkAlways`: `linkSteps` has every directory the path went through even when its name is
    /// no link (for who could reach the file), from a walk that ends at the file just read.
    public static func read(configDirectory: String, relativePath: String,
                            maxBytes: Int = defaultMaxBytes, headLines: Int? = nil, walkAlways: Bool = false) -> ReadResult {
        guard isSafeRelativePath(relativePath) else {
            return .unreadable(message: "not a path inside the config directory")
        }
        let path = join(configDirectory, relativePath)
        // Look before opening: opening a device can have effects of its own (a tape rewinds).
        // The type is checked again on the open descriptor, for a name replaced meanwhile.
        var before = stat()
        if stat(path, &before) == 0, before.st_mode & S_IFMT != S_IFREG {
            return notRegular(before.st_mode & S_IFMT)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return openFailure(errno, path: path) }
        defer { close(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else {
            return .unreadable(message: "cannot stat: \(SystemError.text(errno))")
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else { return notRegular(type) }
        if headLines == nil, Int(info.st_size) > maxBytes {
            return tooLarge(maxBytes)
        }
        let bytes: [UInt8]
        let read = headLines.map { readHead(fd, lines: $0, maxBytes: maxBytes) }
            ?? readAll(fd, expectedSize: Int(info.st_size), maxBytes: maxBytes)
        switch read {
        case .success(let read): bytes = read
        case .failure(let failure): return .unreadable(message: failure.message)
        }
        let facts = FileFacts(ownerUID: info.st_uid, mode: info.st_mode, groupID: info.st_gid)
        let isPublic = facts.isWorldReadable && !isLinkIntoPrivateDirectory(path)
        var steps: [PathStep] = []
        var link = stat()
        if walkAlways || (lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK) {
            // Who could re-point the link is judged by the core (PathChainRule); the walk must
            // end at the file just read.
            switch PathWalk.walk(FileSystem.absolute(path)) {
            case .success(let walk) where walk.device == UInt64(info.st_dev) && walk.inode == UInt64(info.st_ino):
                steps = walk.steps
            case .success:
                return .unreadable(message: "its symbolic link changed while it was read; find out who is replacing it")
            case .failure(let failure):
                return .unreadable(message: "\(failure.path ?? path) on the way to it cannot be checked: "
                    + SystemError.text(failure.errno))
            }
        }
        return .file(ConfigSource(relativePath: relativePath, bytes: bytes, facts: facts,
                                  contentIsPublic: isPublic, linkPath: path, linkSteps: steps))
    }

    /// Every candidate config file under `configDirectory`, as sorted relative paths:
    /// `agentd.conf` if present, then the entries of `manifests.d` and `jobs.d` that are not
    /// directories (FIFOs and devices included, so that they are reported) and not leftovers (`ConfigWatcher.isLeftover`). Subdirectories
    /// are not entered. A missing or unreadable directory contributes nothing.
    ///
    /// One `readdir` pass per directory, trusting `d_type`; only file systems that do not fill
    /// it in cost an `fstatat` per entry.
    public static func scan(configDirectory: String) -> [String] {
        var found: [String] = []
        var info = stat()
        if lstat(join(configDirectory, "agentd.conf"), &info) == 0,
           isCandidate(type: info.st_mode & S_IFMT) {
            found.append("agentd.conf")
        }
        for subdirectory in ["manifests.d", "jobs.d"] {
            for name in candidateNames(in: join(configDirectory, subdirectory)) {
                found.append(subdirectory + "/" + name)
            }
        }
        // String order is code-point order, the same as byte order for every ASCII name.
        return found.sorted()
    }

    // MARK: Reading

    private struct ReadFailure: Error {
        var message: String
    }

    /// Reads until `lines` newlines have been read, end of file, or `maxBytes`: the head of a
    /// file, whatever its size.
    private static func readHead(_ fd: Int32, lines: Int, maxBytes: Int) -> Result<[UInt8], ReadFailure> {
        var bytes: [UInt8] = []
        var newlines = 0
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while newlines < lines, bytes.count < maxBytes {
            let wanted = min(chunk.count, maxBytes - bytes.count)
            let count = chunk.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.read(fd, base, wanted)
            }
            if count > 0 {
                bytes.append(contentsOf: chunk[..<count])
                newlines += chunk[..<count].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            } else if count == 0 {
                break
            } else if errno != EINTR {
                return .failure(ReadFailure(message: "cannot read: \(SystemError.text(errno))"))
            }
        }
        return .success(bytes)
    }

    /// Reads to end of file. The size from `fstat` is only a first guess: a file that grows
    /// while it is read is read to its end or refused as too large.
    private static func readAll(_ fd: Int32, expectedSize: Int, maxBytes: Int) -> Result<[UInt8], ReadFailure> {
        // One byte more than expected, so that reaching end of file needs no second buffer.
        var buffer = [UInt8](repeating: 0, count: max(min(expectedSize, maxBytes) + 1, 4096))
        var used = 0
        while true {
            if used == buffer.count {
                guard buffer.count <= maxBytes else {
                    return .failure(ReadFailure(message: tooLargeMessage(maxBytes)))
                }
                buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, maxBytes + 1 - buffer.count)))
            }
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.read(fd, base + used, raw.count - used)
            }
            if count > 0 {
                used += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                return .failure(ReadFailure(message: "cannot read: \(SystemError.text(errno))"))
            }
        }
        guard used <= maxBytes else { return .failure(ReadFailure(message: tooLargeMessage(maxBytes))) }
        buffer.removeSubrange(used...)
        return .success(buffer)
    }

    /// Whether `path` is a symbolic link whose target lies below a directory that not everyone
    /// may enter (`/root/secret`, mode 0644 in a 0700 directory): its text is as private as if
    /// the file itself were.
    private static func isLinkIntoPrivateDirectory(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return false }
        guard let resolved = realpath(path, nil) else { return true }
        defer { free(resolved) }
        var directory = String(cString: resolved)
        while let slash = directory.lastIndex(of: "/") {
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
            guard stat(directory, &info) == 0, info.st_mode & 0o001 != 0 else { return true }
            if directory == "/" { break }
        }
        return false
    }

    private static func openFailure(_ code: Int32, path: String) -> ReadResult {
        switch code {
        case ENOENT:
            // A symlink whose target is missing is not "gone": the name is still there.
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                return .unreadable(message: "dangling symbolic link (its target does not exist)")
            }
            return .gone
        case ENOTDIR:
            // A path component is no longer a directory (jobs.d replaced by a file).
            return .gone
        case ELOOP:
            return .unreadable(message: "symbolic link loop (\(SystemError.text(code)))")
        default:
            return .unreadable(message: "cannot open: \(SystemError.text(code))")
        }
    }

    private static func notRegular(_ type: mode_t) -> ReadResult {
        .unreadable(message: type == S_IFDIR
            ? "is a directory, not a config file"
            : "not a regular file (\(fileTypeName(type)))")
    }

    private static func tooLarge(_ maxBytes: Int) -> ReadResult {
        .unreadable(message: tooLargeMessage(maxBytes))
    }

    private static func tooLargeMessage(_ maxBytes: Int) -> String {
        "file too large (over \(maxBytes) bytes)"
    }

    private static func fileTypeName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "file type \(String(type, radix: 8))"
        }
    }

    // MARK: Scanning

    private static func candidateNames(in directoryPath: String) -> [String] {
        guard let directory = opendir(directoryPath) else { return [] }
        defer { closedir(directory) }
        let directoryFD = dirfd(directory)
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            // "." and ".." are hidden names, so the leftover rule skips them too.
            if LeftoverNameFilter.isLeftover(name) { continue }
            switch Int(entry.pointee.d_type) {
            case DT_REG, DT_LNK, DT_FIFO, DT_SOCK, DT_CHR, DT_BLK:
                // Not only files: a FIFO or device in jobs.d gets its diagnostic too.
                names.append(name)
            case DT_UNKNOWN:
                var info = stat()
                if fstatat(directoryFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                   isCandidate(type: info.st_mode & S_IFMT) {
                    names.append(name)
                }
            default:
                continue
            }
        }
        return names
    }

    private static func isCandidate(type: mode_t) -> Bool {
        type != S_IFDIR
    }

    // MARK: Paths

    /// Only plain names below the config directory: the watcher and `scan` produce nothing
    /// else, and a `..` must not let a caller read outside it.
    private static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return !path.split(separator: "/", omittingEmptySubsequences: false)
            .contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    private static func join(_ directory: String, _ relativePath: String) -> String {
        directory.hasSuffix("/") ? directory + relativePath : directory + "/" + relativePath
    }
}
