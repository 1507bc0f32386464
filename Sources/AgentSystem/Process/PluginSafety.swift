// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// A plugin executable that passed ``PluginSafety``, held open: the spawn runs this very file.
public final class CheckedExecutable {
    /// The path as `Exec=` named it (argv[0], and what a `#!` interpreter is handed).
    public let path: String
    /// `O_PATH`, close-on-exec.
    public let descriptor: Int32
    /// True for an ELF binary: the child runs it with `execveat(descriptor, "", AT_EMPTY_PATH)`.
    /// False for a `#!` script or anything else a kernel helper reopens by name; the child
    /// execs the path after checking it still names `descriptor`'s file.
    public let runsThroughDescriptor: Bool

    init(path: String, descriptor: Int32, runsThroughDescriptor: Bool) {
        self.path = path
        self.descriptor = descriptor
        self.runsThroughDescriptor = runsThroughDescriptor
    }

    deinit {
        close(descriptor)
    }
}

/// Why a plugin may not be started: the text of `spawn-failed(…)`.
public struct PluginRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Checks a plugin right before each spawn (DESIGN §3: a plugin made world-writable after its job
/// loaded never runs). How the window between check and exec is closed:
///
/// 1. The file is opened (`O_PATH`) and the checks are made on that descriptor (`fstat`), not on
///    the name: owner root or the agent's user, not group- or world-writable, a regular
///    executable file.
/// 2. Every directory above the named path and above its resolved path (`realpath`, for a
///    plugin reached through a symlink) is held to the same owner rule (``PluginPathRule``); the
///    resolved path must still lead to the opened file. With every directory safe, nobody but
///    root or the agent's user can rename anything on the way to the plugin.
/// 3. The child, after dropping privileges and just before exec, `fstat`s the descriptor again
///    and refuses a file that has become group- or world-writable in the meantime.
/// 4. An ELF binary is exec'd through the descriptor (`execveat(…, AT_EMPTY_PATH)`): the file
///    checked is the file that runs, whatever happens to its name. A `#!` script is exec'd by
///    name, because its interpreter opens it by name anyway (through the descriptor it would be
///    handed `/dev/fd/N` as `$0`); the child first checks that the name still leads to the
///    checked file, and step 2 makes sure only trusted users could change that.
///
/// Used on the loop's thread only (it remembers which plugins are ELF binaries).
public final class PluginSafety {
    public let agentUID: UInt32
    public let agentUserName: String
    /// ELF or not, by resolved path, valid while the file's identity and ctime are unchanged
    /// (any write or chmod moves ctime): spares a reopening and read at each spawn.
    private var formats: [String: (identity: FileIdentity, isELF: Bool)] = [:]

    public init(agentUID: UInt32, agentUserName: String) {
        self.agentUID = agentUID
        self.agentUserName = agentUserName
    }

    /// `runAsOwner`: a drop-in script runs as its file's owner (DESIGN §3), so the file itself
    /// may also be owned by that uid (never the directories above it).
    public func check(_ path: String, runAsOwner: UInt32? = nil) -> Result<CheckedExecutable, PluginRefusal> {
        let descriptor = cshim_open_executable(path)
        guard descriptor >= 0 else {
            // As execve would say it (`No such file or directory`): nothing unsafe ran.
            return .failure(PluginRefusal(message: SystemError.text(errno)))
        }
        switch verify(descriptor, path: path, runAsOwner: runAsOwner) {
        case .success(let throughDescriptor):
            return .success(CheckedExecutable(path: path, descriptor: descriptor,
                                              runsThroughDescriptor: throughDescriptor))
        case .failure(let refusal):
            close(descriptor)
            return .failure(refusal)
        }
    }

    /// The checks of steps 1 and 2 on an open descriptor; true when it is an ELF binary.
    private func verify(_ descriptor: Int32, path: String, runAsOwner: UInt32?) -> Result<Bool, PluginRefusal> {
        var file = stat()
        guard fstat(descriptor, &file) == 0 else { return .failure(refusal(path, "cannot be checked")) }
        let fileOwnerTrusted = runAsOwner != nil && runAsOwner == file.st_uid
        if let problem = PluginPathRule.fileProblem(facts(file), path: path,
                                                    agentUID: fileOwnerTrusted ? file.st_uid : agentUID,
                                                    agentUserName: agentUserName) {
            return .failure(PluginRefusal(message: problem))
        }
        guard let resolved = resolvedPath(descriptor, path: path, file: file) else {
            return .failure(PluginRefusal(message: "unsafe: \(path) changed while it was being checked; "
                + "find out who is replacing it"))
        }
        var seen: Set<String> = []
        for directory in PluginPathRule.directories(above: path) + PluginPathRule.directories(above: resolved)
            where seen.insert(directory).inserted {
            var info = stat()
            guard stat(directory, &info) == 0 else {
                return .failure(PluginRefusal(message: "unsafe: \(directory) (above \(path)) cannot be checked: "
                    + SystemError.text(errno)))
            }
            if let problem = PluginPathRule.directoryProblem(facts(info), directory: directory, plugin: path,
                                                             agentUID: agentUID, agentUserName: agentUserName) {
                return .failure(PluginRefusal(message: problem))
            }
        }
        return .success(isELF(descriptor, resolved: resolved, file: file))
    }

    /// Where the open file really is: the kernel's name for the descriptor (one readlink, and
    /// it is the open file's by construction), else `realpath` checked to lead to the same file.
    /// nil when the name no longer leads to it (deleted, or replaced while being checked).
    private func resolvedPath(_ descriptor: Int32, path: String, file: stat) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return readlink("/proc/self/fd/\(descriptor)", base, raw.count - 1)
        }
        if count > 0 {
            let name = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if name.hasPrefix("/") && !name.hasSuffix(" (deleted)") { return name }
        }
        guard let resolved = realPath(path) else { return nil }
        var named = stat()
        guard stat(resolved, &named) == 0, named.st_dev == file.st_dev, named.st_ino == file.st_ino else { return nil }
        return resolved
    }

    private func facts(_ info: stat) -> FileFacts {
        FileFacts(ownerUID: info.st_uid, mode: info.st_mode)
    }

    private func refusal(_ path: String, _ what: String) -> PluginRefusal {
        PluginRefusal(message: "\(path) \(what): \(SystemError.text(errno))")
    }

    private func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether the file starts with the ELF magic: remembered while the file is unchanged, else
    /// read through a read-only reopening of the `O_PATH` descriptor (one that cannot be read
    /// says "not known to be ELF": exec by name, which the child checks too).
    private func isELF(_ descriptor: Int32, resolved: String, file: stat) -> Bool {
        let identity = FileIdentity(file)
        if let known = formats[resolved], known.identity == identity { return known.isELF }
        let answer = readsELFMagic(descriptor)
        if formats.count >= 1024 { formats.removeAll() }
        formats[resolved] = (identity, answer)
        return answer
    }

    private func readsELFMagic(_ descriptor: Int32) -> Bool {
        let readable = open("/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard readable >= 0 else { return false }
        defer { close(readable) }
        var magic: [UInt8] = [0, 0, 0, 0]
        let count = magic.withUnsafeMutableBytes { pread(readable, $0.baseAddress, 4, 0) }
        return count == 4 && magic == [0x7F, 0x45, 0x4C, 0x46]
    }
}

/// A file's identity and last change: equal values mean the same, unchanged file.
struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
    var changedSeconds: Int
    var changedNanoseconds: Int
    var size: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        changedSeconds = info.st_ctim.tv_sec
        changedNanoseconds = info.st_ctim.tv_nsec
        size = Int64(info.st_size)
    }
}
