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
/// 2. The path is resolved one component at a time (``PathWalk``): every directory on the way
///    and every symbolic link followed, each link's target resolved the same way, is held to
///    the owner rule (``PathChainRule``), and the walk must end at the opened file. With every
///    step safe, nobody but root or the agent's user can make the name lead anywhere else.
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
        // Every directory and link on the way, each link's target resolved step by step: who
        // could make the name lead elsewhere (issue 28 item 11: a link through another user's
        // directory let that user choose the binary).
        let walk: PathWalk.Result
        switch PathWalk.walk(path) {
        case .success(let result): walk = result
        case .failure(let failure):
            return .failure(PluginRefusal(message: "unsafe: \(failure.path ?? path) (on the way to \(path)) "
                + "cannot be checked: \(SystemError.text(failure.errno))"))
        }
        guard walk.device == UInt64(file.st_dev), walk.inode == UInt64(file.st_ino) else {
            return .failure(PluginRefusal(message: "unsafe: \(path) changed while it was being checked; "
                + "find out who is replacing it"))
        }
        if let problem = PathChainRule.problem(walk.steps, path: path, agentUID: agentUID,
                                               agentUserName: agentUserName) {
            return .failure(PluginRefusal(message: problem))
        }
        let resolved = walk.resolved
        return .success(isELF(descriptor, resolved: resolved, file: file))
    }

    private func facts(_ info: stat) -> FileFacts {
        FileFacts(ownerUID: info.st_uid, mode: info.st_mode)
    }

    private func refusal(_ path: String, _ what: String) -> PluginRefusal {
        PluginRefusal(message: "\(path) \(what): \(SystemError.text(errno))")
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
