// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A failed file-system step while building a fake kernel tree: the test cannot go on.
public struct FakeTreeError: Error, CustomStringConvertible {
    public let description: String

    init(_ step: String, _ path: String, errno code: Int32 = errno) {
        let reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        description = "\(step) \(path): \(reason)"
    }
}

/// File-system steps shared by the fake trees: files 0644, directories 0755, whatever the umask.
enum FakeTreeFiles {
    static func makeTemporaryDirectory(tag: String) throws -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/agentd-\(tag)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else { throw FakeTreeError("mkdtemp in", base) }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard chmod(path, 0o755) == 0 else { throw FakeTreeError("chmod", path) }
        return path
    }

    /// Creates `path` and any missing parents.
    static func makeDirectories(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            var info = stat()
            if lstat(current, &info) == 0 {
                if info.st_mode & S_IFMT == S_IFDIR { continue }
                if info.st_mode & S_IFMT == S_IFLNK, stat(current, &info) == 0,
                   info.st_mode & S_IFMT == S_IFDIR { continue }
                throw FakeTreeError("not a directory:", current, errno: ENOTDIR)
            }
            guard mkdir(current, 0o755) == 0 || errno == EEXIST else { throw FakeTreeError("mkdir", current) }
            guard chmod(current, 0o755) == 0 else { throw FakeTreeError("chmod", current) }
        }
    }

    /// Writes `contents` to `path` (created 0644 or truncated), creating parent directories.
    static func write(_ path: String, _ contents: String) throws {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectories(String(path[..<slash]))
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FakeTreeError("open", path) }
        defer { close(fd) }
        guard fchmod(fd, 0o644) == 0 else { throw FakeTreeError("fchmod", path) }
        let bytes = Array(contents.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let start = raw.baseAddress else { return -1 }
                return Glibc.write(fd, start + offset, raw.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw FakeTreeError("write", path) }
            offset += written
        }
    }

    /// Removes `path` (a file or symbolic link); a missing one is fine.
    static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw FakeTreeError("unlink", path) }
    }

    static func symlink(target: String, at path: String) throws {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectories(String(path[..<slash]))
        }
        guard Glibc.symlink(target, path) == 0 else { throw FakeTreeError("symlink", path) }
    }

    /// Removes the tree at `path` without following symbolic links; errors are ignored.
    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            if let directory = opendir(path) {
                var names: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                        tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                            String(cString: $0)
                        }
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

    /// Millidegrees for a temperature in °C (`82.5` → `82500`).
    static func milli(_ celsius: Double) -> Int {
        Int((celsius * 1000).rounded())
    }

    /// A PSI percentage as the kernel prints it: two decimals.
    static func percent(_ value: Double) -> String {
        let hundredths = Int((max(0, value) * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0\(fraction)" : "\(fraction)")
    }
}
