// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
@testable import AgentSystem

/// What a client thread saw: its lines, or the error that stopped it.
struct ClientOutcome: Sendable {
    var lines: [String] = []
    var error: String?

    /// Runs a client body on the calling thread, capturing its lines or its error.
    static func run(_ body: (inout [String]) throws -> Void) -> ClientOutcome {
        var outcome = ClientOutcome()
        do {
            try body(&outcome.lines)
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }
}

extension ControlClient {
    /// Reads one line as text; "<EOF>" when the server closed.
    func readText(timeout: Duration = .seconds(30)) throws -> String {
        guard let line = try readLine(timeout: timeout) else { return "<EOF>" }
        return String(decoding: line, as: UTF8.self)
    }
}

/// A raw client socket driven by the test's own loop (non-blocking), for tests that need exact
/// control over what is sent and when the connection is closed.
final class LoopClient {
    let fd: Int32
    private var token: WatchToken?
    private let loop: EventLoop
    private(set) var received: [UInt8] = []
    private(set) var closedAt: MonotonicInstant?
    let connectedAt: MonotonicInstant
    var onLine: ((String) -> Void)?
    var onEOF: (() -> Void)?

    init(loop: EventLoop, path: String) throws {
        let fd = cshim_unix_connect(path)
        guard fd >= 0 else { throw SocketError.forPath(path, call: "connect", errno: errno) }
        _ = cshim_set_nonblocking(fd)
        self.fd = fd
        self.loop = loop
        connectedAt = MonotonicInstant.now()
        token = try loop.watch(fd: fd, events: .readable) { [weak self] _ in self?.readable() }
    }

    /// Received lines so far, as text.
    var lines: [String] {
        received.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
            .map { String(decoding: $0, as: UTF8.self) }
    }

    var isClosed: Bool { closedAt != nil }

    func write(_ text: String) {
        write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { cshim_send_nonblocking(fd, $0.baseAddress! + offset, bytes.count - offset) }
            guard n > 0 else { return }  // full or closed: the tests never need more
            offset += n
        }
    }

    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    private func readable() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = read(fd, &buffer, buffer.count)
        if n > 0 {
            let before = received.count
            received += buffer[0..<n]
            let newLines = received[before...].filter { $0 == 0x0A }.count
            if newLines > 0, let onLine {
                for line in lines.suffix(newLines) { onLine(line) }
            }
        } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
            closedAt = loop.now
            if let token { loop.unwatch(token) }
            token = nil
            onEOF?()
        }
    }

    deinit {
        if let token { loop.unwatch(token) }
        close(fd)
    }
}

/// Counts down to zero, then stops the loop.
final class Countdown {
    private(set) var remaining: Int
    private let loop: EventLoop

    init(_ count: Int, loop: EventLoop) {
        remaining = count
        self.loop = loop
    }

    func tick() {
        remaining -= 1
        if remaining == 0 { loop.stop() }
    }
}

/// A pthread barrier for `count` threads.
final class ThreadBarrier: @unchecked Sendable {
    private let barrier = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)

    init(count: Int) {
        pthread_barrier_init(barrier, nil, UInt32(count))
    }

    func wait() {
        pthread_barrier_wait(barrier)
    }

    deinit {
        pthread_barrier_destroy(barrier)
        barrier.deallocate()
    }
}

func echo(_ request: ControlServer.Request) {
    request.respond(Array("echo:".utf8) + request.bytes)
}

/// The calling process's supplementary groups.
func currentGroups() -> Set<gid_t> {
    let count = getgroups(0, nil)
    guard count > 0 else { return [] }
    var groups = [gid_t](repeating: 0, count: Int(count))
    let got = getgroups(count, &groups)
    return Set(groups.prefix(Int(max(0, got))))
}
