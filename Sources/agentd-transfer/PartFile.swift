// SPDX-License-Identifier: Apache-2.0
import Glibc

/// `DEST.part`: where the download is written, until it is complete, synced and renamed to DEST.
final class PartFile {
    let path: String
    let destination: String
    private let descriptor: Int32

    struct Failure: Error {
        let message: String
    }

    /// Opens (or creates) DEST.part without truncating it: its size is where a resume starts.
    init(destination: String) throws(Failure) {
        self.destination = destination
        path = destination + ".part"
        descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Failure(message: "cannot open \(path): \(PartFile.errorText()); "
                + "create its directory \(PartFile.directory(of: destination)) or choose another destination")
        }
    }

    deinit {
        close(descriptor)
    }

    var size: Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Cuts the file to `length` and places the write position there.
    func reset(to length: Int64) throws(Failure) {
        guard ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, off_t(length), SEEK_SET) >= 0 else {
            throw Failure(message: "cannot truncate \(path): \(PartFile.errorText())")
        }
    }

    /// Writes all of `bytes`; the error names the file and errno's text (ENOSPC: "No space left on device").
    func append(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw Failure(message: "cannot write \(path): \(PartFile.errorText())") }
            offset += written
        }
    }

    /// Starts writeback of `length` bytes at `offset` without waiting for it (POSIX_FADV_DONTNEED
    /// writes dirty pages back asynchronously and drops the clean ones), so the final fsync has
    /// little left to do and a large download neither piles up dirty pages nor fills the page cache.
    func startWriteback(offset: Int64, length: Int64) {
        _ = posix_fadvise(descriptor, off_t(offset), off_t(length), POSIX_FADV_DONTNEED)
    }

    func sync() throws(Failure) {
        guard fsync(descriptor) == 0 else { throw Failure(message: "cannot fsync \(path): \(PartFile.errorText())") }
    }

    /// Feeds the first `length` bytes already on disk to `digest` (a resumed --sha256 download).
    func hashPrefix(_ length: Int64, into digest: SHA256Digest) throws(Failure) {
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { throw Failure(message: "cannot read \(path): \(PartFile.errorText())") }
        defer { close(reader) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var left = length
        while left > 0 {
            let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, min($0.count, Int(left))) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Failure(message: "cannot read \(path): \(PartFile.errorText())") }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            left -= Int64(count)
        }
    }

    /// fsync, rename to DEST, fsync the directory: after this, DEST is the whole file even across a
    /// power cut, and no reader ever sees a half-written DEST.
    func commit() throws(Failure) {
        try sync()
        guard rename(path, destination) == 0 else {
            throw Failure(message: "cannot rename \(path) to \(destination): \(PartFile.errorText())")
        }
        let directory = PartFile.directory(of: destination)
        let handle = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else { throw Failure(message: "cannot open \(directory) to fsync it: \(PartFile.errorText())") }
        defer { close(handle) }
        guard fsync(handle) == 0 else { throw Failure(message: "cannot fsync \(directory): \(PartFile.errorText())") }
    }

    func removeIfEmpty() {
        if size == 0 { unlink(path) }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
