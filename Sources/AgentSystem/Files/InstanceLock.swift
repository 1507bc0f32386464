// SPDX-License-Identifier: Apache-2.0
import Glibc

/// One agent per state directory: an exclusive `flock` on `DIR/agentd.lock`, held for the
/// process's life (the kernel drops it when the process ends, however it ends). A second agent
/// on the same state (`agentd --user` of the same user, or a system agent started by hand beside
/// the service) refuses before it touches the state, the config or the socket: it could not know
/// what the first has run, disabled or paused.
///
/// The directory itself is locked too: deleting `agentd.lock` (a cleanup script, a careless
/// `rm`) would otherwise let a second agent make a new one and lock that.
public final class InstanceLock {
    private let fd: Int32
    private let directoryFD: Int32

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
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw SystemError(call: "open", errno: errno, path: directory) }
        do {
            try lock(directoryFD, path: path)
        } catch {
            Glibc.close(directoryFD)
            throw error
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            let code = errno
            Glibc.close(directoryFD)
            throw SystemError(call: "open", errno: code, path: path)
        }
        do {
            try lock(fd, path: path)
        } catch {
            Glibc.close(fd)
            Glibc.close(directoryFD)
            throw error
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return InstanceLock(fd: fd, directoryFD: directoryFD)
    }

    /// An exclusive lock on `fd` now, or `Held` (naming the pid `path` holds) when another
    /// agent has it.
    private static func lock(_ fd: Int32, path: String) throws {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            if code == EWOULDBLOCK {
                throw Held(path: path, pid: SmallFile.read(path, limit: 32).flatMap { Int32($0.filter { $0 != "\n" }) })
            }
            throw SystemError(call: "flock", errno: code, path: path)
        }
    }

    private init(fd: Int32, directoryFD: Int32) {
        self.fd = fd
        self.directoryFD = directoryFD
    }

    deinit {
        Glibc.close(fd)
        Glibc.close(directoryFD)
    }
}
