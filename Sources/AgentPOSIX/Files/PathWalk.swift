// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// Resolves an absolute path one component at a time, as the kernel does, and says what it went
/// through: every directory looked up in and every symbolic link followed (each link's target
/// resolved the same way, `..` after a link taken from where the link led). ``PathChainRule``
/// judges the steps; ``PluginSafety`` and the config reader make sure the file they opened is
/// the one the walk ended at.
public enum PathWalk {
    /// Where the walk ended and what it went through on the way.
    public struct Result: Sendable {
        /// Directories and links, in the order they were met, each once.
        public var steps: [PathStep]
        /// The resolved path of the last component.
        public var resolved: String
        public var device: UInt64
        public var inode: UInt64
    }

    /// The kernel's own limit on links followed in one lookup (`MAXSYMLINKS`).
    static let mostLinks = 40

    /// Walks `path` (absolute). Fails with the `errno` of the component that could not be
    /// looked up (`ENOENT`, `EACCES`, `ELOOP` past 40 links, `ENOTDIR`).
    public static func walk(_ path: String) -> Swift.Result<Result, SystemError> {
        guard path.hasPrefix("/") else { return .failure(SystemError(call: "resolve", errno: EINVAL, path: path)) }
        var steps: [PathStep] = []
        var seen: Set<String> = []
        var info = stat()
        guard lstat("/", &info) == 0 else { return .failure(.last("lstat", path: "/")) }
        steps.append(PathStep(path: "/", kind: .directory, facts: facts(info)))
        seen.insert("/")
        // Components still to resolve, the next one last (so that a link's target is pushed on).
        var pending = Array(components(path).reversed())
        var resolved: [Substring] = []
        var links = 0
        var last = info
        var endedWithNewDirectory = false
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." {
                if !resolved.isEmpty { resolved.removeLast() }
                let parent = "/" + resolved.joined(separator: "/")
                guard lstat(parent, &last) == 0 else { return .failure(.last("lstat", path: parent)) }
                endedWithNewDirectory = false
                continue
            }
            let candidate = "/" + (resolved + [component]).joined(separator: "/")
            guard lstat(candidate, &info) == 0 else { return .failure(.last("lstat", path: candidate)) }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                links += 1
                guard links <= mostLinks else { return .failure(SystemError(call: "resolve", errno: ELOOP, path: path)) }
                guard let target = readLink(candidate) else { return .failure(.last("readlink", path: candidate)) }
                if seen.insert(candidate).inserted {
                    steps.append(PathStep(path: candidate, kind: .symbolicLink(target: target), facts: facts(info)))
                }
                if target.hasPrefix("/") { resolved = [] }
                pending.append(contentsOf: components(target).reversed())
            case S_IFDIR:
                resolved.append(component)
                endedWithNewDirectory = seen.insert(candidate).inserted
                if endedWithNewDirectory {
                    steps.append(PathStep(path: candidate, kind: .directory, facts: facts(info)))
                }
                last = info
            default:
                // Only the last component may be something other than a directory.
                guard pending.allSatisfy({ $0 == "." }) else {
                    return .failure(SystemError(call: "resolve", errno: ENOTDIR, path: candidate))
                }
                resolved.append(component)
                last = info
            }
        }
        // The file itself is the caller's to judge (it has it open), not a step above it: a
        // path naming a directory drops the step its last component added.
        let end = "/" + resolved.joined(separator: "/")
        if last.st_mode & S_IFMT == S_IFDIR, endedWithNewDirectory, steps.last?.path == end {
            steps.removeLast()
        }
        return .success(Result(steps: steps, resolved: end, device: UInt64(last.st_dev), inode: UInt64(last.st_ino)))
    }

    private static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func facts(_ info: stat) -> FileFacts {
        FileFacts(ownerUID: info.st_uid, mode: info.st_mode, groupID: info.st_gid)
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return readlink(path, base, raw.count - 1)
        }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
