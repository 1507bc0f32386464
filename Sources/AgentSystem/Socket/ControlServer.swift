// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// The control socket's transport (DESIGN §9): a non-blocking unix stream server on the event loop
/// that frames newline-delimited requests and never blocks the agent.
///
/// Each complete line is handed to `handler` as a `Request` carrying the peer's credentials; the
/// handler answers with `respond` at once or later. Requests of one connection are delivered one at
/// a time, in order. The limits refuse oversized requests (one refusal line, then close), close idle
/// clients, cap the connections per user and in all (keeping slots for root and the socket's
/// group), bound the unsent output per client and in all, and drop clients that do not read their
/// responses. What the bytes mean — JSON, authorization — is the protocol layer's business.
///
/// Use it on the loop thread only.
public final class ControlServer {
    /// Bounds on what clients may cost the agent (DESIGN §9).
    public struct Limits: Sendable, Equatable {
        /// Longest request line, excluding `\n`.
        public var maxRequestBytes: Int
        /// A client with no complete request, no request in progress and nothing pending for this
        /// long is closed; so is one whose pending output the socket has not taken for this long.
        public var idleTimeout: Duration
        /// Connections open at once, all peers together; see the reserves.
        public var maxClients: Int
        /// Connections one uid other than root may hold.
        public var maxClientsPerUser: Int
        /// Of `maxClients`, slots only root may take.
        public var reservedForRoot: Int
        /// Of `maxClients`, further slots only root and the socket's group may take.
        public var reservedForGroup: Int
        /// Unsent bytes held for one client. An answer larger than this is refused with a line
        /// saying so; a client that lets more pile up is dropped.
        public var maxPendingOutput: Int
        /// `maxPendingOutput` for root and the socket's group: trusted, few, and the ones whose
        /// `list` or `status` of a large configuration must not be refused.
        public var maxPrivilegedPendingOutput: Int
        /// Unsent bytes held for all clients together; beyond it, answers to peers other than
        /// root and the socket's group are refused ("busy") and their connections closed.
        public var maxTotalPendingOutput: Int
        /// Request bytes held for all clients together (unfinished lines, requests waiting for
        /// their turn); beyond it, peers other than root and the socket's group are answered
        /// "busy" and closed. One client holds at most `maxRequestBytes` and a read.
        public var maxTotalPendingInput: Int
        /// Unsent event bytes held for one subscriber (`ClientConnection.stream`): one that falls
        /// further behind gets its last line (`overflow`) and is dropped. Within `maxPendingOutput`.
        public var maxStreamBacklog: Int

        public init(maxRequestBytes: Int = 65_536, idleTimeout: Duration = .seconds(10),
                    maxClients: Int = 512, maxClientsPerUser: Int = 16, reservedForRoot: Int = 16,
                    reservedForGroup: Int = 16, maxPendingOutput: Int = 256 << 10,
                    maxTotalPendingOutput: Int = 8 << 20, maxTotalPendingInput: Int = 4 << 20,
                    maxPrivilegedPendingOutput: Int = 4 << 20, maxStreamBacklog: Int = 128 << 10) {
            self.maxStreamBacklog = maxStreamBacklog
            self.maxPrivilegedPendingOutput = maxPrivilegedPendingOutput
            self.maxTotalPendingInput = maxTotalPendingInput
            self.maxRequestBytes = maxRequestBytes
            self.idleTimeout = idleTimeout
            self.maxClients = maxClients
            self.maxClientsPerUser = maxClientsPerUser
            self.reservedForRoot = reservedForRoot
            self.reservedForGroup = reservedForGroup
            self.maxPendingOutput = maxPendingOutput
            self.maxTotalPendingOutput = maxTotalPendingOutput
        }

        /// 64 KiB requests, 10 s idle timeout, 512 clients of which 16 for root and 16 more for
        /// root and the group, 16 per other user, 256 KiB pending output per client (4 MiB for root
        /// and the group), 8 MiB in all, 4 MiB of request bytes held in all, 128 KiB of events
        /// behind per subscriber.
        public static let `default` = Limits()
    }

    /// How the transport's own refusals look on the wire; the protocol layer supplies the shape.
    public struct Refusals: Sendable {
        /// The line (without `\n`) sent for a refusal.
        public var line: @Sendable (Refusal) -> [UInt8]

        public init(line: @escaping @Sendable (Refusal) -> [UInt8]) {
            self.line = line
        }

        /// A control response: `{"error":{"code":C,"message":M},"ok":false}`, with code
        /// `request-too-large` for oversized requests and `unavailable` (agentctl exit 5) otherwise.
        public static let standard = Refusals { refusal in
            let code = refusal.kind == .requestTooLarge ? "request-too-large" : "unavailable"
            return Array("{\"error\":{\"code\":\"\(code)\",\"message\":\"\(jsonEscaped(refusal.message))\"},\"ok\":false}".utf8)
        }

        private static func jsonEscaped(_ text: String) -> String {
            var escaped = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case _ where scalar.value < 0x20: escaped += " "
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
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
    /// Connections refused by the admission limits (per user, reserves, `maxClients`).
    public private(set) var refusedCount: UInt64 = 0
    /// Unsent output held for all connections together.
    public private(set) var pendingOutputTotal = 0
    /// Request bytes held for all connections together.
    public private(set) var pendingInputTotal = 0
    /// How much a peer is trusted; a seam for tests, which all run as one user.
    var standing: (PeerCredentials) -> Admission.Standing
    /// The socket's group: its members are trusted like root in the admission and output limits,
    /// short of root's own reserve.
    public let privilegedGroup: gid_t?

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
    private var connectionsPerUID: [uid_t: Int] = [:]
    private var nextConnectionID: UInt64 = 1
    private var socketIdentity: (dev: UInt64, ino: UInt64)?
    private var acceptPauseTimer: TimerToken?
    private var turns: TurnQueue

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
        self.privilegedGroup = group
        self.turns = TurnQueue(loop: loop)
        self.standing = { Admission.standing(of: $0, group: group) }
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
            // Every slice: accepting is bounded per call, and a connection that arrives while
            // the iteration that accepted the one before runs must not wait for its end.
            listenToken = try loop.watch(fd: fd, events: .readable, urgent: true, everySlice: true) { [weak self] _ in
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
        connectionsPerUID.removeAll()
    }

    /// Whether the server is still listening.
    public var isListening: Bool { listenFD >= 0 }

    // MARK: - Accepting

    private func acceptPending() {
        // Bounded per wakeup so that a connection storm cannot starve the rest of the loop, and
        // large enough that a flood of refused connects (one line and a close each, cheap) keeps
        // root's connect waiting in the backlog for few iterations.
        for _ in 0..<256 {
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
        guard let peer = try? PeerCredentials.of(socket: fd) else {
            Glibc.close(fd)
            return
        }
        let standing = self.standing(peer)
        if let refusal = Admission(limits: limits).refusal(
            standing: standing, uid: peer.uid, open: connections.count,
            openForUser: connectionsPerUID[peer.uid, default: 0]) {
            refuse(fd, refusal)
            return
        }
        let id = nextConnectionID
        nextConnectionID += 1
        do {
            let connection = try ClientConnection(fd: fd, id: id, peer: peer, isPrivileged: standing != .other,
                                                  loop: loop, limits: limits, server: self)
            connections[id] = connection
            connectionsPerUID[peer.uid, default: 0] += 1
            acceptedCount += 1
            onConnect?(connection)
            // A client usually sent its request before we accepted: reading it now saves it a
            // loop iteration (and so a slice of other peers' work).
            connection.readNow()
        } catch {
            Glibc.close(fd)
        }
    }

    /// One line, never waited for (a fresh socket's buffer takes it), then the connection is closed:
    /// a refused peer costs nothing after this.
    private func refuse(_ fd: Int32, _ refusal: Refusal) {
        refusedCount += 1
        let line = refusals.line(refusal) + [0x0A]
        _ = line.withUnsafeBytes { raw in
            cshim_send_nonblocking(fd, raw.baseAddress, raw.count)
        }
        Glibc.close(fd)
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

    /// Whether `connection` may have its next request handled now; if not, it is queued and
    /// resumed in a later loop iteration (see `TurnQueue`).
    func grantTurn(_ connection: ClientConnection, resumed: Bool) -> Bool {
        turns.grant(connection, resumed: resumed)
    }

    func deliver(_ request: Request) {
        handler(request)
    }

    /// Keeps `pendingOutputTotal` in step with each connection's unsent output.
    func pendingOutputChanged(by delta: Int) {
        pendingOutputTotal += delta
    }

    func pendingInputChanged(by delta: Int) {
        pendingInputTotal += delta
    }

    /// Whether `bytes` more request bytes fit in `maxTotalPendingInput`.
    func totalInputAllows(_ bytes: Int) -> Bool {
        pendingInputTotal + bytes <= limits.maxTotalPendingInput
    }

    /// Whether `bytes` more unsent output fit in `maxTotalPendingOutput`.
    func totalOutputAllows(_ bytes: Int) -> Bool {
        pendingOutputTotal + bytes <= limits.maxTotalPendingOutput
    }

    func connectionDidClose(_ connection: ClientConnection, reason: ClientConnection.CloseReason) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        let uid = connection.peer.uid
        let remaining = connectionsPerUID[uid, default: 1] - 1
        connectionsPerUID[uid] = remaining > 0 ? remaining : nil
        onDisconnect?(connection, reason)
    }

    // MARK: - Socket file

    private static func identity(of path: String) -> (dev: UInt64, ino: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Throws ``SocketError/addressInUse(path:)`` when a server answers on `path`: an agent
    /// started beside a running one (another state directory, the same socket) stops here, before
    /// its start-up recovery takes the running agent's runs for leftovers of its own.
    public static func refuseIfServed(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return }
        let probe = cshim_unix_connect_nonblocking(path)
        if probe >= 0 {
            Glibc.close(probe)
            throw SocketError.addressInUse(path: path)
        }
        if errno == EAGAIN { throw SocketError.addressInUse(path: path) }
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
