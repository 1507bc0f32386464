// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// A blocking control-socket client for agentctl: one connection, lines out, lines in.
///
/// Use it from one thread. Sends never raise SIGPIPE; every wait is bounded by a timeout.
public final class ControlClient {
    /// The socket path connected to.
    public let path: String
    private var fd: Int32
    private var framer: LineFramer
    private var endOfStream = false
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)

    private init(path: String, fd: Int32, maxLineBytes: Int) {
        self.path = path
        self.fd = fd
        self.framer = LineFramer(maxLineBytes: maxLineBytes)
    }

    deinit {
        close()
    }

    /// Connects to agentd's socket. `timeout` bounds the connect (a server whose backlog is full)
    /// and each later `send`. `maxLineBytes` bounds one response line.
    ///
    /// Throws `SocketError.noSocket` (ENOENT) or `.connectionRefused` (ECONNREFUSED) when agentd is
    /// not there — see `SocketError.isAgentUnreachable` — and `.permissionDenied` when the user may
    /// not connect.
    public static func connect(path: String, timeout: Duration = .seconds(5),
                               maxLineBytes: Int = 64 << 20) throws -> ControlClient {
        let ns = MonotonicInstant.clampedNanoseconds(of: timeout)
        let ms = ns <= 0 ? 0 : Int32(clamping: max(1, ns / 1_000_000))
        let fd = cshim_unix_connect_timeout(path, ms)
        guard fd >= 0 else { throw SocketError.forPath(path, call: "connect", errno: errno) }
        return ControlClient(path: path, fd: fd, maxLineBytes: maxLineBytes)
    }

    /// Sends one line; a `\n` is appended and embedded `\n` bytes become spaces. When agentd closed
    /// the connection with a line for us (a refusal), the send is dropped and `readLine` returns it.
    public func send(line: [UInt8]) throws {
        try send(lines: [line])
    }

    /// Sends lines in one write, each as `send(line:)` would.
    public func send(lines: [[UInt8]]) throws {
        guard fd >= 0 else { throw SocketError.connectionClosed }
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line.map { $0 == 0x0A ? 0x20 : $0 }
            bytes.append(0x0A)
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return cshim_send_nosignal(fd, base + offset, raw.count - offset)
            }
            if written > 0 {
                offset += written
                continue
            }
            let code = errno
            switch code {
            case EAGAIN, EWOULDBLOCK: throw SocketError.timedOut(operation: "send")
            case EPIPE, ECONNRESET:
                // agentd may have refused the connection (one line, then close) before our request
                // went out: that line is still ours to read.
                if hasPendingInput() { return }
                throw SocketError.connectionClosed
            default: throw SocketError.system(call: "send", errno: code)
            }
        }
    }

    /// Whether bytes from agentd are waiting to be read.
    private func hasPendingInput() -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0 && pfd.revents & Int16(POLLIN) != 0
    }

    /// Sends one line of UTF-8 text.
    public func send(line: String) throws {
        try send(line: Array(line.utf8))
    }

    /// The next line (without `\n`), or nil once agentd closed the connection (a trailing partial
    /// line is dropped). Throws `.timedOut` when no complete line arrives within `timeout`, and
    /// `.lineTooLong` for a line over the limit.
    public func readLine(timeout: Duration) throws -> [UInt8]? {
        let deadline = MonotonicInstant.now() + timeout
        while true {
            switch framer.next() {
            case .line(let line): return line
            case .tooLong: throw SocketError.lineTooLong(limit: framer.maxLineBytes)
            case nil: break
            }
            if endOfStream || fd < 0 { return nil }
            let remaining = MonotonicInstant.clampedNanoseconds(of: MonotonicInstant.now().duration(to: deadline))
            guard remaining > 0 else { throw SocketError.timedOut(operation: "read") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(clamping: (remaining + 999_999) / 1_000_000))
            if ready < 0 {
                if errno == EINTR { continue }
                throw SocketError.system(call: "poll", errno: errno)
            }
            if ready == 0 { continue }  // re-checks the deadline
            let count = readBuffer.withUnsafeMutableBytes { raw in
                read(fd, raw.baseAddress, raw.count)
            }
            if count > 0 {
                readBuffer.withUnsafeBytes { raw in
                    framer.append(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                }
            } else if count == 0 {
                endOfStream = true
            } else {
                let code = errno
                switch code {
                case EINTR, EAGAIN: continue
                // After the server closed with unread input of ours: the data before it was read.
                case ECONNRESET: endOfStream = true
                default: throw SocketError.system(call: "read", errno: code)
                }
            }
        }
    }

    /// Sends a line and waits for the response line.
    public func request(_ line: [UInt8], timeout: Duration) throws -> [UInt8]? {
        try send(line: line)
        return try readLine(timeout: timeout)
    }

    /// Closes the connection (idempotent).
    public func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// The connected descriptor (-1 once closed), e.g. to shut down one direction.
    public var fileDescriptor: Int32 { fd }
}
