// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing

/// A fresh directory under the temp dir (mkdtemp), removed with everything in it when the value
/// goes away.
final class ConfigTempDirectory {
    let path: String

    /// `inMemory` puts it on /dev/shm when there is one: creating thousands of files on this
    /// machine's ext4 costs about 0.4 ms each, on tmpfs a hundredth of that.
    init(inMemory: Bool = false) throws {
        let base = inMemory && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : nil
        path = try ConfigFS.makeTemporaryDirectory(in: base)
    }

    deinit {
        ConfigFS.removeTree(path)
    }

    func at(_ relativePath: String) -> String { path + "/" + relativePath }
}

/// Small file-system actions for the config tests, each failing the test loudly.
enum ConfigFS {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func makeTemporaryDirectory(in directory: String? = nil) throws -> String {
        let base = directory ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/agentd-config-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else { throw failure("mkdtemp in \(base)") }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `contents` the way a person's `cat > file` does: create or truncate, write, close.
    static func write(_ path: String, _ contents: String = "[Job]\n", mode: mode_t = 0o644) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("open \(path)") }
        defer { close(fd) }
        var bytes = Array(contents.utf8)
        try writeAll(fd, &bytes, path: path)
        guard fchmod(fd, mode) == 0 else { throw failure("fchmod \(path)") }
    }

    static func write(_ path: String, bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open \(path)") }
        defer { close(fd) }
        var copy = bytes
        try writeAll(fd, &copy, path: path)
    }

    static func writeAll(_ fd: Int32, _ text: String, path: String) throws {
        var bytes = Array(text.utf8)
        try writeAll(fd, &bytes, path: path)
    }

    private static func writeAll(_ fd: Int32, _ bytes: inout [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, raw.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure("write \(path)") }
            offset += written
        }
    }

    static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw failure("mkdir \(path)") }
    }

    static func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw failure("rename \(from) \(to)") }
    }

    static func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw failure("unlink \(path)") }
    }

    static func symlink(target: String, at path: String) throws {
        guard Glibc.symlink(target, path) == 0 else { throw failure("symlink \(path)") }
    }

    static func link(_ existing: String, _ new: String) throws {
        guard Glibc.link(existing, new) == 0 else { throw failure("link \(new)") }
    }

    static func chmod(_ path: String, _ mode: mode_t) throws {
        guard Glibc.chmod(path, mode) == 0 else { throw failure("chmod \(path)") }
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// `rm -rf`: depth first, without following symlinks.
    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            if let directory = opendir(path) {
                var names: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(directory)
                for name in names { removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}

/// Monotonic seconds, for deadlines and timing.
func configTestNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
