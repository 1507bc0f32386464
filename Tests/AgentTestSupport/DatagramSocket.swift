// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A unix datagram socket bound at `path`, for a test to stand in for systemd's notification
/// socket or journald's: what a daemon sends there is read back with a deadline. Removed with
/// its file when the value goes away.
public final class DatagramSocket {
    public let path: String
    public let descriptor: Int32

    /// nil when the socket cannot be made or bound (the path is too long or taken).
    /// `receiveBuffer`: bytes to force the receive buffer to (a test that sends bursts).
    public init?(path: String, receiveBuffer: Int32? = nil) {
        self.path = path
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let fits = path.utf8.count < MemoryLayout.size(ofValue: address.sun_path)
        if fits {
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
            }
        }
        let bound = fits && withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
        guard bound else {
            close(descriptor)
            return nil
        }
        if var size = receiveBuffer {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Waits for a datagram (poll, at most `seconds`); false when none came.
    public func waitReadable(seconds: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(max(0, seconds) * 1000) + 1) > 0
    }

    /// The first datagram within `seconds` whose text satisfies `matches`, or nil; the others
    /// are read and dropped.
    public func firstText(seconds: Double, where matches: (String) -> Bool) -> String? {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = seconds - (Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9)
            guard left > 0, waitReadable(seconds: left) else { return nil }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            if matches(text) { return text }
        }
    }
}
