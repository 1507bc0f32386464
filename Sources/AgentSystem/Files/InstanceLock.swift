// SPDX-License-Identifier: Apache-2.0
import Glibc

/// One agent per state directory: an exclusive `flock` on `DIR/agentd.lock`, held for the
/// process's life (the kernel drops it when the process ends, however it ends). A second agent
/// on the same state (`agentd --user` of the same user, or a system agent started by hand beside
/// the service) refuses before it touches the state, the config or the socket: it could not know
/// what the first has run, disabled or paused.
public final class InstanceLock {
    private let fd: Int32

    /// Why the lock cannot be had: another instance holds it (with its pid, when written).
    public struct Held: Error, CustomStringConvertible {
        public var path: String
        public var pid: Int32?
        public var description: String {
            "another agentd holds \(path)" + (pid.map { " (pid \($0))" } ?? "")
        }
    }

    /// Takes the lock, making `directory` (with `mode`: the per-user agent's state is 0700, the
    /// system agent's 0755, since its runs' users reach their state directories through it) if
    /// it is missing.
    public static func acquire(in directory: String, mode: mode_t = 0o700) throws -> InstanceLock {
        try FileSystem.makeDirectories(directory, mode: mode)
        let path = directory + "/agentd.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw SystemError(call: "open", errno: errno, path: path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let pid = SmallFile.read(path, limit: 32).flatMap { Int32($0.filter { $0 != "\n" }) }
            Glibc.close(fd)
            if code == EWOULDBLOCK { throw Held(path: path, pid: pid) }
            throw SystemError(call: "flock", errno: code, path: path)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return InstanceLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    deinit { Glibc.close(fd) }
}
