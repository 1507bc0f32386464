// SPDX-License-Identifier: Apache-2.0
import Glibc
import TransferCore

/// `DEST.part`: where the download is written, until it is complete, synced and renamed to DEST.
/// Both names are used only relative to DEST's directory, reached by ``SafeDirectory``, and never
/// through a link: see ``PathSafetyRule``.
final class PartFile {
    let path: String
    let destination: String
    private let directory: SafeDirectory
    private let name: String
    private let destinationName: String
    private let descriptor: Int32

    struct Failure: Error {
        let message: String
    }

    /// Opens DEST.part without truncating it (its size is where a resume starts), or creates it.
    init(destination: String) throws(Failure) {
        self.destination = destination
        path = destination + ".part"
        destinationName = PartFile.name(of: destination)
        name = destinationName + ".part"
        directory = try SafeDirectory(PartFile.directory(of: destination), runUID: geteuid())
        // Before anything is downloaded: the rename at the end must be able to replace DEST.
        if let directoryFacts = SafeDirectory.facts(directory.descriptor),
           let problem = PathSafetyRule.destinationProblem(SafeDirectory.facts(directory.descriptor, destinationName),
                                                           directory: directoryFacts, path: destination, runUID: geteuid()) {
            throw Failure(message: problem)
        }
        descriptor = try PartFile.open(name, in: directory.descriptor, shownAs: path)
    }

    deinit {
        close(descriptor)
    }

    /// The run's own regular file, or a new one (`O_EXCL`): never a link (`O_NOFOLLOW`), never
    /// somebody else's file. `O_NONBLOCK` so that a planted fifo cannot hang the open.
    private static func open(_ name: String, in directory: Int32, shownAs path: String) throws(Failure) -> Int32 {
        // Twice at most: a DEST.part that appears between the two opens is looked at again.
        for _ in 0..<2 {
            let existing = openat(directory, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            if existing >= 0 {
                let facts = SafeDirectory.facts(existing)
                let problem = facts.flatMap { PathSafetyRule.partFileProblem($0, path: path, runUID: geteuid()) }
                guard facts != nil, problem == nil else {
                    close(existing)
                    throw Failure(message: problem ?? "cannot examine \(path): \(errorText())")
                }
                _ = fcntl(existing, F_SETFL, fcntl(existing, F_GETFL) & ~O_NONBLOCK)
                return existing
            }
            guard errno == ENOENT else {
                let text = errorText()
                // ELOOP (a link), EISDIR, ENXIO (a fifo): the rule says what it is and why not.
                if let facts = SafeDirectory.facts(directory, name),
                   let problem = PathSafetyRule.partFileProblem(facts, path: path, runUID: geteuid()) {
                    throw Failure(message: problem)
                }
                throw Failure(message: "cannot open \(path): \(text)")
            }
            let created = openat(directory, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if created >= 0 { return created }
            guard errno == EEXIST else {
                throw Failure(message: "cannot create \(path): \(errorText()); check that its directory is writable by the run's user (uid \(geteuid()))")
            }
        }
        throw Failure(message: "cannot open \(path): it keeps being replaced; find out what else writes it")
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

    /// Feeds the first `length` bytes already on disk to `digest` (a resumed --sha256 download),
    /// read through the same descriptor (pread), not by name.
    func hashPrefix(_ length: Int64, into digest: SHA256Digest) throws(Failure) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < length {
            let count = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, min($0.count, Int(length - done)), off_t(done))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Failure(message: "cannot read \(path): \(PartFile.errorText())") }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            done += Int64(count)
        }
    }

    /// fsync, rename to DEST, fsync the directory: after this, DEST is the whole file even across a
    /// power cut, and no reader ever sees a half-written DEST. renameat replaces whatever DEST is,
    /// a link included, without following it.
    func commit() throws(Failure) {
        try sync()
        guard renameat(directory.descriptor, name, directory.descriptor, destinationName) == 0 else {
            throw Failure(message: "cannot rename \(path) to \(destination): \(PartFile.errorText())")
        }
        try directory.sync()
    }

    /// Removes DEST.part when it is empty and its name still leads to this file.
    func removeIfEmpty() {
        var mine = stat(), named = stat()
        guard fstat(descriptor, &mine) == 0, mine.st_size == 0,
              fstatat(directory.descriptor, name, &named, AT_SYMLINK_NOFOLLOW) == 0,
              named.st_dev == mine.st_dev, named.st_ino == mine.st_ino else { return }
        unlinkat(directory.descriptor, name, 0)
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
