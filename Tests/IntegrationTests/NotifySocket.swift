// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A service manager's notification socket, for a test: a datagram socket bound at `path` that
/// a daemon started with `NOTIFY_SOCKET=path` sends `READY=1` (and `STATUS=…`) to. Waiting on it
/// is waiting for the daemon to say it is ready, not polling until it seems to be.
final class NotifySocket {
    let path: String
    private let descriptor: Int32

    init?(path: String) {
        self.path = path
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, path.utf8.count < 108 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Waits until a datagram carries the line `line` (e.g. `READY=1`), at most `seconds`;
    /// returns whether one did.
    func wait(for line: String, seconds: Double) -> Bool {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let elapsed = Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard elapsed < seconds, poll(&entry, 1, Int32((seconds - elapsed) * 1000) + 1) > 0 else { return false }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            if text.split(separator: "\n").contains(Substring(line)) { return true }
        }
    }
}
