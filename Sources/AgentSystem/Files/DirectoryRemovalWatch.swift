// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Says when a directory is removed or moved away, or a file in it (by name) is deleted: the
/// per-user agent's `$XDG_RUNTIME_DIR`, which logind removes at logout, taking the control socket
/// with it (DESIGN §10: the per-user agent then stops cleanly); the state directory's WAL.
public final class DirectoryRemovalWatch {
    private var source: WatchedDescriptor?

    /// `onGone` runs on the loop when `directory` or its entry `name` goes: once, or each time
    /// when `repeating` (the state directory's `state.db-wal`, whose removal the agent repairs).
    public init(loop: EventLoop, directory: String, name: String, repeating: Bool = false,
                onGone: @escaping () -> Void) throws {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemError(call: "inotify_init1", errno: errno) }
        let mask = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_DELETE | IN_MOVED_FROM)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let code = errno
            Glibc.close(fd)
            throw SystemError(call: "inotify_add_watch", errno: code, path: directory)
        }
        var fired = false
        source = try WatchedDescriptor(loop: loop, fd: fd) { fd in
            guard Self.drain(fd, name: name), !fired else { return }
            fired = !repeating
            onGone()
        }
    }

    /// Reads every pending event; true when one says the directory or `name` went.
    private static func drain(_ fd: Int32, name: String) -> Bool {
        var gone = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return gone }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (mask, length) = buffer.withUnsafeBytes { raw -> (UInt32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let entry = String(decoding: buffer[nameStart..<min(nameStart + length, count)].prefix { $0 != 0 },
                                   as: UTF8.self)
                if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { gone = true }
                if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0, entry == name { gone = true }
                offset = nameStart + length
            }
        }
    }
}
