// SPDX-License-Identifier: Apache-2.0
import Glibc
import TransferCore

/// DEST's directory, reached one name at a time (`openat` with `O_PATH | O_NOFOLLOW`) and held
/// open: DEST.part and DEST are opened and renamed relative to it, so no name is resolved twice
/// and nothing on the way can be swapped between the check and the use. Every directory walked and
/// every link followed is held to ``PathSafetyRule``.
///
/// A relative path starts at the working directory, an inode the agent handed over (the job's
/// `STATE_DIRECTORY`): the names above it are never resolved, so only it and what is below are
/// checked. An absolute one starts at `/`.
final class SafeDirectory {
    /// `O_PATH`, close-on-exec: a handle for the `*at` calls, not for reading.
    let descriptor: Int32
    /// As the destination named it, for messages.
    let path: String

    /// As the kernel's MAXSYMLINKS: more is a loop.
    static let mostLinks = 40

    init(_ path: String, runUID: uid_t) throws(PartFile.Failure) {
        self.path = path
        var walk = Walk(runUID: runUID, named: path)
        descriptor = try walk.open()
    }

    deinit {
        close(descriptor)
    }

    /// fsync needs a descriptor that is not `O_PATH`: the directory itself, reopened through ".".
    func sync() throws(PartFile.Failure) {
        let handle = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else { throw PartFile.Failure(message: "cannot open \(path) to fsync it: \(PartFile.errorText())") }
        defer { close(handle) }
        guard fsync(handle) == 0 else { throw PartFile.Failure(message: "cannot fsync \(path): \(PartFile.errorText())") }
    }

    /// `fstat` of `descriptor` (or of `name` in it, not following a link), as the rule sees it.
    static func facts(_ descriptor: Int32, _ name: String = "") -> PathSafetyRule.Facts? {
        var info = stat()
        let flags = AT_SYMLINK_NOFOLLOW | (name.isEmpty ? AT_EMPTY_PATH : 0)
        guard fstatat(descriptor, name, &info, flags) == 0 else { return nil }
        let kind: PathSafetyRule.Kind = switch info.st_mode & S_IFMT {
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        case S_IFREG: .regularFile
        case S_IFIFO: .other("fifo")
        case S_IFSOCK: .other("socket")
        default: .other("device")
        }
        return PathSafetyRule.Facts(kind: kind, ownerUID: info.st_uid, mode: UInt32(info.st_mode) & 0o7777,
                                    links: UInt64(info.st_nlink))
    }
}

/// One walk down a path: the names still to go (a followed link's target goes in front of them),
/// the directory reached so far and how it is shown in messages.
private struct Walk {
    let runUID: uid_t
    let named: String
    var pending: [Substring]
    var shown: [Substring] = []
    var absolute: Bool
    var links = 0

    init(runUID: uid_t, named: String) {
        self.runUID = runUID
        self.named = named
        absolute = named.hasPrefix("/")
        // Reversed: the next name is popped from the end.
        pending = named.split(separator: "/").reversed()
    }

    var here: String {
        let joined = shown.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : "./" + joined)
    }

    mutating func open() throws(PartFile.Failure) -> Int32 {
        var current = try start()
        while let name = pending.popLast() {
            if name == "." { continue }
            let next = openat(current, String(name), O_PATH | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else {
                let text = PartFile.errorText()
                close(current)
                throw PartFile.Failure(message: "cannot open \(step(name)): \(text); "
                    + "create the directory or choose another destination")
            }
            guard let facts = SafeDirectory.facts(next) else {
                let text = PartFile.errorText()
                close(next)
                close(current)
                throw PartFile.Failure(message: "cannot examine \(step(name)): \(text)")
            }
            switch facts.kind {
            case .directory:
                let problem = PathSafetyRule.directoryProblem(facts, path: step(name), runUID: runUID)
                close(current)
                current = next
                enter(name)
                if let problem {
                    close(current)
                    throw failure(problem)
                }
            case .symbolicLink:
                defer { close(next) }
                do throws(PartFile.Failure) {
                    try follow(next, facts, at: step(name), from: &current)
                } catch {
                    close(current)
                    throw error
                }
            case .regularFile, .other:
                close(next)
                close(current)
                throw PartFile.Failure(message: "\(step(name)) is not a directory; choose another destination")
            }
        }
        return current
    }

    /// `/` or the working directory, held to the rule like any other directory.
    private mutating func start() throws(PartFile.Failure) -> Int32 {
        let descriptor = Glibc.open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PartFile.Failure(message: "cannot open \(here): \(PartFile.errorText())") }
        guard let facts = SafeDirectory.facts(descriptor) else {
            close(descriptor)
            throw PartFile.Failure(message: "cannot examine \(here): \(PartFile.errorText())")
        }
        if let problem = PathSafetyRule.directoryProblem(facts, path: here, runUID: runUID) {
            close(descriptor)
            throw failure(problem)
        }
        return descriptor
    }

    /// Queues a trusted link's target; an absolute target starts again from `/`.
    private mutating func follow(_ link: Int32, _ facts: PathSafetyRule.Facts, at path: String,
                                 from current: inout Int32) throws(PartFile.Failure) {
        if let problem = PathSafetyRule.linkProblem(facts, path: path, runUID: runUID) { throw failure(problem) }
        links += 1
        guard links <= SafeDirectory.mostLinks else { throw failure("too many symbolic links on the way (a loop?) at \(path)") }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlinkat(link, "", &buffer, buffer.count - 1)
        guard length > 0 else { throw PartFile.Failure(message: "cannot read the link \(path): \(PartFile.errorText())") }
        let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        pending += target.split(separator: "/").reversed()
        if target.hasPrefix("/") {
            absolute = true
            shown = []
            let root = try start()
            close(current)
            current = root
        }
    }

    /// The path of `name` below the directory reached so far.
    private func step(_ name: Substring) -> String {
        let base = here
        return (base.hasSuffix("/") ? base : base + "/") + name
    }

    private mutating func enter(_ name: Substring) {
        if name == "..", let last = shown.last, last != ".." {
            shown.removeLast()
        } else {
            shown.append(name)
        }
    }

    /// A refusal for safety, as opposed to a plain error (a missing directory).
    private func failure(_ problem: String) -> PartFile.Failure {
        PartFile.Failure(message: "refusing to download into \(named): \(problem)")
    }
}
