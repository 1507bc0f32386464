// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// The control socket's transport (DESIGN §9): a non-blocking unix stream server on the event loop
/// that frames newline-delimited requests and never blocks the agent.
///
/// Each complete line is handed to `handler` as a `Request` carrying the peer's credentials; the
/// handler answers with `respond` at once or later. Requests of one connection are delivered one at
/// a time, in order. The limits refuse oversized requests (one refusal line, then close), close idle
/// clients, cap the number of clients, and drop clients that do not read their responses. What the
/// bytes mean — JSON, authorization — is the protocol layer's business.
///
/// Use it on the loop thread only.
public final class ControlServer {
    /// Bounds on what one client may cost the agent.
    public struct Limits: Sendable, Equatable {
        /// Longest request line, excluding `\n`.
        public var maxRequestBytes: Int
        /// A client with no complete request, no request in progress and nothing pending for this
        /// long is closed.
        public var idleTimeout: Duration
        /// Connections beyond this many get a refusal line and are closed at once.
        public var maxClients: Int
        /// A client whose unsent responses would exceed this is dropped. A single response larger
        /// than this is still sent to a client that has nothing else pending.
        public var maxPendingOutput: Int

        public init(maxRequestBytes: Int = 65_536, idleTimeout: Duration = .seconds(10),
                    maxClients: Int = 256, maxPendingOutput: Int = 4 << 20) {
            self.maxRequestBytes = maxRequestBytes
            self.idleTimeout = idleTimeout
            self.maxClients = maxClients
            self.maxPendingOutput = maxPendingOutput
        }

        /// 64 KiB requests, 10 s idle timeout, 256 clients, 4 MiB pending output.
        public static let `default` = Limits()
    }

    /// The lines the transport itself sends when it refuses a client; the protocol layer supplies
    /// its own JSON. Each closure gets the limit that was exceeded.
    public struct Refusals: Sendable {
        /// Sent before closing a connection whose request exceeded `maxRequestBytes`.
        public var requestTooLarge: @Sendable (_ maxRequestBytes: Int) -> [UInt8]
        /// Sent before closing a connection accepted beyond `maxClients`.
        public var tooManyClients: @Sendable (_ maxClients: Int) -> [UInt8]

        public init(requestTooLarge: @escaping @Sendable (Int) -> [UInt8],
                    tooManyClients: @escaping @Sendable (Int) -> [UInt8]) {
            self.requestTooLarge = requestTooLarge
            self.tooManyClients = tooManyClients
        }

        /// `{"error":"request-too-large","message":"request exceeds N bytes"}` and
        /// `{"error":"too-many-clients","message":"more than N clients connected"}`.
        public static let standard = Refusals(
            requestTooLarge: { limit in
                Array("{\"error\":\"request-too-large\",\"message\":\"request exceeds \(limit) bytes\"}".utf8)
            },
            tooManyClients: { limit in
                Array("{\"error\":\"too-many-clients\",\"message\":\"more than \(limit) clients connected\"}".utf8)
            })
    }

    /// One request line received on the control socket.
    public struct Request {
        /// The line, without its `\n`. Not validated here: malformed JSON is the protocol layer's job.
        public let bytes: [UInt8]
        /// The connection it came on: `send` more lines on it (streaming) or `close` it.
        public let connection: ClientConnection
        let sequence: UInt64

        /// Who sent it (SO_PEERCRED, read at accept).
        public var peer: PeerCredentials { connection.peer }

        /// Sends the response line (a `\n` is appended). May be called later, from any loop
        /// callback; only the first call per request counts. The connection's next request is
        /// delivered after it.
        public func respond(_ bytes: [UInt8]) {
            connection.respond(to: sequence, with: bytes)
        }
    }

    /// The socket path.
    public let path: String
    /// The limits in force.
    public let limits: Limits
    /// The refusal lines in use.
    public let refusals: Refusals
    /// Called after each connection ended, with the reason (for logs and metrics).
    public var onDisconnect: ((ClientConnection, ClientConnection.CloseReason) -> Void)?
    /// Called for each accepted connection, before its first request.
    public var onConnect: ((ClientConnection) -> Void)?

    /// Open connections.
    public var clientCount: Int { connections.count }
    /// Connections accepted over the server's life (refused ones excluded).
    public private(set) var acceptedCount: UInt64 = 0
    /// Connections refused because `maxClients` were open.
    public private(set) var refusedCount: UInt64 = 0

    /// Scratch memory for reads, shared by all connections (single thread).
    final class ReadScratch {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        deinit { buffer.deallocate() }
    }

    /// Scratch buffer for reads, shared by all connections.
    let readScratch = ReadScratch()
    var readBuffer: UnsafeMutableRawBufferPointer { readScratch.buffer }

    private let loop: EventLoop
    private let handler: (Request) -> Void
    private var listenFD: Int32
    private var listenToken: WatchToken?
    private var connections: [UInt64: ClientConnection] = [:]
    private var nextConnectionID: UInt64 = 1
    private var socketIdentity: (dev: UInt64, ino: UInt64)?
    private var acceptPauseTimer: TimerToken?

    /// Binds `path` and starts accepting on `loop`.
    ///
    /// A leftover socket file at `path` is removed first when no server answers on it; anything
    /// else there (a live server, a regular file) is an error and is left alone. The socket gets
    /// `mode` (and `group`, when given) before it starts listening, so no client can connect
    /// through looser permissions.
    public init(loop: EventLoop, path: String, mode: mode_t = 0o660, group: gid_t? = nil,
                limits: Limits = .default, refusals: Refusals = .standard,
                handler: @escaping (Request) -> Void) throws {
        self.loop = loop
        self.path = path
        self.limits = limits
        self.refusals = refusals
        self.handler = handler
        self.listenFD = -1
        do {
            try ControlServer.removeStaleSocket(at: path)
            let fd = cshim_unix_bind(path)
            guard fd >= 0 else { throw SocketError.forPath(path, call: "bind", errno: errno) }
            listenFD = fd
            socketIdentity = ControlServer.identity(of: path)
            guard chmod(path, mode) == 0 else {
                throw SocketError.system(call: "chmod \(path)", errno: errno)
            }
            if let group {
                guard chown(path, uid_t.max, group) == 0 else {  // uid -1: unchanged
                    throw SocketError.system(call: "chown \(path)", errno: errno)
                }
            }
            guard cshim_listen(fd, SOMAXCONN) == 0 else {
                throw SocketError.system(call: "listen", errno: errno)
            }
            listenToken = try loop.watch(fd: fd, events: .readable, urgent: true) { [weak self] _ in
                self?.acceptPending()
            }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Stops listening, closes every connection (reason `.serverShutdown`) and removes the socket
    /// file — only if it is still the one this server created.
    public func close() {
        if let listenToken { loop.unwatch(listenToken) }
        listenToken = nil
        if let acceptPauseTimer { loop.cancel(acceptPauseTimer) }
        acceptPauseTimer = nil
        if listenFD >= 0 {
            Glibc.close(listenFD)
            listenFD = -1
            if let socketIdentity, let current = ControlServer.identity(of: path),
               current == socketIdentity {
                unlink(path)
            }
            socketIdentity = nil
        }
        let open = connections.values.sorted { $0.id < $1.id }
        for connection in open {
            connection.abort(.serverShutdown)
        }
        connections.removeAll()
    }

    /// Whether the server is still listening.
    public var isListening: Bool { listenFD >= 0 }

    // MARK: - Accepting

    private func acceptPending() {
        // Bounded per wakeup so that a connection storm cannot starve the rest of the loop.
        for _ in 0..<64 {
            let fd = cshim_accept_nonblocking(listenFD)
            if fd < 0 {
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK:
                    return
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                default:
                    // EMFILE, ENFILE, ENOBUFS, ENOMEM: the pending connection stays in the backlog
                    // and the listener stays readable; pause accepting briefly instead of spinning.
                    pauseAccepting()
                    return
                }
            }
            admit(fd)
        }
    }

    private func admit(_ fd: Int32) {
        guard connections.count < limits.maxClients else {
            refusedCount += 1
            let line = refusals.tooManyClients(limits.maxClients) + [0x0A]
            _ = line.withUnsafeBytes { raw in
                cshim_send_nonblocking(fd, raw.baseAddress, raw.count)
            }
            Glibc.close(fd)
            return
        }
        guard let peer = try? PeerCredentials.of(socket: fd) else {
            Glibc.close(fd)
            return
        }
        let id = nextConnectionID
        nextConnectionID += 1
        do {
            let connection = try ClientConnection(fd: fd, id: id, peer: peer, loop: loop, limits: limits,
                                                  server: self)
            connections[id] = connection
            acceptedCount += 1
            onConnect?(connection)
        } catch {
            Glibc.close(fd)
        }
    }

    private func pauseAccepting() {
        guard let listenToken, acceptPauseTimer == nil else { return }
        try? loop.change(listenToken, events: [])
        acceptPauseTimer = loop.schedule(after: .milliseconds(100)) { [weak self] in
            guard let self else { return }
            self.acceptPauseTimer = nil
            if let token = self.listenToken { try? self.loop.change(token, events: .readable) }
        }
    }

    // MARK: - Connections

    func deliver(_ request: Request) {
        handler(request)
    }

    func connectionDidClose(_ connection: ClientConnection, reason: ClientConnection.CloseReason) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        onDisconnect?(connection, reason)
    }

    // MARK: - Socket file

    private static func identity(of path: String) -> (dev: UInt64, ino: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Removes a socket file nobody listens on; refuses to touch anything else.
    private static func removeStaleSocket(at path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw SocketError.forPath(path, call: "lstat", errno: code)
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw SocketError.notASocket(path: path) }
        let probe = cshim_unix_connect_nonblocking(path)
        if probe >= 0 {
            Glibc.close(probe)
            throw SocketError.addressInUse(path: path)
        }
        switch errno {
        case ECONNREFUSED:
            guard unlink(path) == 0 || errno == ENOENT else {
                throw SocketError.system(call: "unlink \(path)", errno: errno)
            }
        case ENOENT:
            return  // removed meanwhile
        case EAGAIN:
            throw SocketError.addressInUse(path: path)  // a live server with a full backlog
        case let code:
            throw SocketError.forPath(path, call: "connect", errno: code)
        }
    }
}
