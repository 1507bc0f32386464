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
public struct PluginSafety: Sendable {
    public var agentUID: UInt32
    public var agentUserName: String

    public init(agentUID: UInt32, agentUserName: String) {
        self.agentUID = agentUID
        self.agentUserName = agentUserName
    }

    public func check(_ path: String) -> Result<CheckedExecutable, PluginRefusal> {
        let descriptor = cshim_open_executable(path)
        guard descriptor >= 0 else {
            // As execve would say it (`No such file or directory`): nothing unsafe ran.
            return .failure(PluginRefusal(message: String(cString: strerror(errno))))
        }
        switch verify(descriptor, path: path) {
        case .success(let throughDescriptor):
            return .success(CheckedExecutable(path: path, descriptor: descriptor,
                                              runsThroughDescriptor: throughDescriptor))
        case .failure(let refusal):
            close(descriptor)
            return .failure(refusal)
        }
    }

    /// The checks of steps 1 and 2 on an open descriptor; true when it is an ELF binary.
    private func verify(_ descriptor: Int32, path: String) -> Result<Bool, PluginRefusal> {
        var file = stat()
        guard fstat(descriptor, &file) == 0 else { return .failure(refusal(path, "cannot be checked")) }
        if let problem = PluginPathRule.fileProblem(facts(file), path: path, agentUID: agentUID,
                                                    agentUserName: agentUserName) {
            return .failure(PluginRefusal(message: problem))
        }
        guard let resolved = realPath(path) else { return .failure(refusal(path, "cannot be resolved")) }
        var named = stat()
        guard stat(resolved, &named) == 0, named.st_dev == file.st_dev, named.st_ino == file.st_ino else {
            return .failure(PluginRefusal(message: "unsafe: \(path) changed while it was being checked; "
                + "find out who is replacing it"))
        }
        var seen: Set<String> = []
        for directory in PluginPathRule.directories(above: path) + PluginPathRule.directories(above: resolved)
            where seen.insert(directory).inserted {
            var info = stat()
            guard stat(directory, &info) == 0 else {
                return .failure(PluginRefusal(message: "unsafe: \(directory) (above \(path)) cannot be checked: "
                    + String(cString: strerror(errno))))
            }
            if let problem = PluginPathRule.directoryProblem(facts(info), directory: directory, plugin: path,
                                                             agentUID: agentUID, agentUserName: agentUserName) {
                return .failure(PluginRefusal(message: problem))
            }
        }
        return .success(isELF(descriptor))
    }

    private func facts(_ info: stat) -> FileFacts {
        FileFacts(ownerUID: info.st_uid, mode: info.st_mode)
    }

    private func refusal(_ path: String, _ what: String) -> PluginRefusal {
        PluginRefusal(message: "\(path) \(what): \(String(cString: strerror(errno)))")
    }

    private func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether the file starts with the ELF magic, read through a read-only reopening of the
    /// `O_PATH` descriptor (one that cannot be read says "not known to be ELF": exec by name).
    private func isELF(_ descriptor: Int32) -> Bool {
        let readable = open("/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard readable >= 0 else { return false }
        defer { close(readable) }
        var magic: [UInt8] = [0, 0, 0, 0]
        let count = magic.withUnsafeMutableBytes { pread(readable, $0.baseAddress, 4, 0) }
        return count == 4 && magic == [0x7F, 0x45, 0x4C, 0x46]
    }
}
