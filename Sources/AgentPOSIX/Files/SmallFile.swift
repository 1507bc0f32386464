// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Small whole-file reads: sysfs and procfs attributes, cgroupfs files, the agent's own small
/// state files. Each is one short text, and any failure (missing file, `EIO`/`ENODATA` from a
/// sleeping device, permission) means "unknown", never an error the caller must handle.
public enum SmallFile {
    /// Attribute files are at most a page; more than this is not an attribute.
    public static let maxBytes = 64 << 10

    /// The whole contents of `path`, or nil when it cannot be opened or read or is over
    /// `limit` bytes. Opened non-blocking, so a FIFO in a fake tree cannot hang the caller.
    public static func read(_ path: String, limit: Int = maxBytes) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    /// The whole contents of the open file `fd` read again from its start (a kernel attribute
    /// file regenerates what it says at each read from offset 0); nil as for ``read(_:limit:)``.
    /// For a file read often: no path to walk each time.
    public static func reread(_ fd: Int32, limit: Int = maxBytes) -> String? {
        guard lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        return readAll(fd, limit: limit)
    }

    /// Reads `fd` from its current position to end of file; nil on a read error or when over
    /// `limit` bytes.
    static func readAll(_ fd: Int32, limit: Int = maxBytes) -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Glibc.read(fd, base, raw.count)
            }
            if count > 0 {
                bytes += chunk[0..<count]
                if bytes.count > limit { return nil }
            } else if count == 0 {
                return String(decoding: bytes, as: UTF8.self)
            } else if errno != EINTR {
                return nil
            }
        }
    }

    /// The attribute at `path` without surrounding whitespace; nil when unreadable.
    public static func value(_ path: String) -> String? {
        read(path).map(trim)
    }

    /// The attribute at `path` as a decimal integer; nil when unreadable or not an integer.
    package static func integer(_ path: String) -> Int? {
        value(path).flatMap { Int($0) }
    }

    /// The names in `directory` except `.` and `..`, sorted; empty when it cannot be listed.
    /// Symbolic links (real sysfs class directories hold links) and directories alike.
    package static func entries(_ directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        return names.sorted()
    }

    /// The last path component of the target of the symbolic link at `path` (e.g. a
    /// `device/driver` link to `…/drivers/amdgpu` gives `amdgpu`); nil when it is no link.
    package static func linkTargetBasename(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return readlink(path, base, raw.count - 1)
        }
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = target.split(separator: "/").last.map(String.init)
        return name?.isEmpty == false ? name : nil
    }

    /// Whether something (of any type, links not followed) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    package static func trim(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        var slice = Substring(text)
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
