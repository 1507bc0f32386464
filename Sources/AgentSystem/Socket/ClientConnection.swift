// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// One accepted control-socket client, owned by its `ControlServer` and driven by the event loop.
///
/// Requests are handed to the server's handler one at a time: the next line of a connection is not
/// read until the previous request got its `respond`, so responses come back in request order and a
/// client that pipelines cannot make agentd buffer unboundedly. Output never blocks: what the socket
/// does not take at once is buffered and flushed when it becomes writable. The buffer is bounded:
/// an answer larger than `maxPendingOutput` (`maxPrivilegedPendingOutput` for root and the
/// socket's group) is replaced by a refusal line, a client that lets more than that pile up is
/// dropped, and one whose output the socket has not taken for `idleTimeout` is dropped too; beyond
/// `maxTotalPendingOutput` for all clients, unprivileged peers are answered "busy" and closed.
/// Unprivileged requests wait for their turn (`TurnQueue`). A connection with no request in progress, nothing to send and not streaming
/// is closed after `idleTimeout` without a complete request.
///
/// Use it on the loop thread only.
public final class ClientConnection {
    /// Why a connection ended.
    public enum CloseReason: Equatable, Sendable, CustomStringConvertible {
        /// The client closed its end (after its requests were answered) or hung up.
        case peerClosed
        /// No complete request for `idleTimeout`.
        case idleTimeout
        /// A request line exceeded `maxRequestBytes` (the refusal line was sent first).
        case requestTooLarge
        /// The client did not read its responses: pending output exceeded `maxPendingOutput`.
        case outputOverflow
        /// The client did not read its responses: none of its pending output was taken for
        /// `idleTimeout`.
        case outputStalled
        /// The output of all clients together reached `maxTotalPendingOutput` (a "busy" line was
        /// sent when it could be).
        case serverBusy
        /// `close()` was called (after flushing what was pending).
        case closedByServer
        /// The server shut down.
        case serverShutdown
        /// A read or write failed with this errno.
        case failed(errno: Int32)

        public var description: String {
            switch self {
            case .peerClosed: return "peer closed"
            case .idleTimeout: return "idle timeout"
            case .requestTooLarge: return "request too large"
            case .outputOverflow: return "client not reading (output limit exceeded)"
            case .outputStalled: return "client not reading (no output taken within the idle timeout)"
            case .serverBusy: return "refused: unsent output of all clients at its limit"
            case .closedByServer: return "closed by server"
            case .serverShutdown: return "server shutdown"
            case .failed(let code): return "I/O error: \(SocketError.text(code))"
            }
        }
    }

    /// Unique among the server's connections, never reused.
    public let id: UInt64
    /// The client process, read with SO_PEERCRED at accept.
    public let peer: PeerCredentials
    /// Root or a member of the socket's group: exempt from `maxTotalPendingOutput`.
    public let isPrivileged: Bool
    /// False once the connection is closed (or closing); sends are then ignored.
    public var isOpen: Bool { state == .open }
    /// Called once when the connection has ended, e.g. to drop a stream subscription.
    public var onClose: ((CloseReason) -> Void)?
    /// Requests handed to the handler so far.
    public private(set) var requestCount: UInt64 = 0

    /// Marks a connection that a streaming command keeps open (e.g. `agentctl watch`): while set,
    /// the idle timeout does not apply. The stream ends with `close()` or when the client goes away.
    public var isStreaming = false {
        didSet { if !isStreaming { armIdleTimer() } }
    }

    /// Bytes accepted for sending that the socket has not taken yet.
    public var pendingOutputBytes: Int { output.count - outputStart }

    /// `body`'s answer about the peer's process (read from `/proc/PID`), kept only if the
    /// process that connected is still alive afterwards — so `PID` was not reused by another
    /// process meanwhile (SO_PEERPIDFD). Nil when it is gone; where the kernel has no
    /// SO_PEERPIDFD (before 6.5) the answer is kept unchecked.
    public func whilePeerProcessLives<T>(_ body: (pid_t) -> T?) -> T? {
        guard isOpen else { return nil }
        let pidfd = cshim_peer_pidfd(fd)
        let unsupported = pidfd < 0 && (errno == ENOPROTOOPT || errno == EINVAL)
        guard pidfd >= 0 || unsupported else { return nil }
        defer { if pidfd >= 0 { Glibc.close(pidfd) } }
        let answer = body(peer.pid)
        if pidfd >= 0, cshim_pidfd_send_signal(pidfd, 0) != 0 { return nil }
        return answer
    }

    private enum State { case open, closing, closed }

    private let fd: Int32
    private let loop: EventLoop
    private let limits: ControlServer.Limits
    private weak var server: ControlServer?
    private var token: WatchToken?
    private var state = State.open
    private var closeReason = CloseReason.closedByServer
    private var framer: LineFramer
    private var output: [UInt8] = []
    private var outputStart = 0
    /// Sequence number of the request awaiting its response.
    private var outstanding: UInt64?
    /// The client shut down its sending side (read returned 0).
    private var inputClosed = false
    private var processing = false
    private var processScheduled = false
    /// A request line read but not yet handed on: the connection waits for its turn.
    private var heldFrame: LineFramer.Frame?
    /// In the server's queue for a turn (unprivileged peers get a slice of each loop iteration).
    private(set) var awaitingTurn = false
    /// Request bytes held (partial line, unread lines, the held frame), as last told the server.
    private var inputHeld = 0
    private var lastActivity: MonotonicInstant
    /// When the client last took output (or, with nothing taken yet, when output began to
    /// wait): the stall clock. Requests do not move it, so a client that pipelines requests
    /// and never reads is dropped at the idle timeout like any other, root's too.
    private var lastOutputProgress: MonotonicInstant
    private var idleTimer: TimerToken?
    private var lingerTimer: TimerToken?

    init(fd: Int32, id: UInt64, peer: PeerCredentials, isPrivileged: Bool, loop: EventLoop,
         limits: ControlServer.Limits, server: ControlServer) throws {
        self.fd = fd
        self.id = id
        self.peer = peer
        self.isPrivileged = isPrivileged
        self.loop = loop
        self.limits = limits
        self.server = server
        self.framer = LineFramer(maxLineBytes: limits.maxRequestBytes)
        self.lastActivity = loop.now
        self.lastOutputProgress = loop.now
        token = try loop.watch(fd: fd, events: .readable, urgent: true) { [weak self] events in
            self?.handle(events)
        }
        armIdleTimer()
    }

    deinit {
        // The server closes every connection before letting go of it; this is only a safety net.
        if state != .closed {
            if let token { loop.unwatch(token) }
            Glibc.close(fd)
        }
    }

    // MARK: - Public operations

    /// Queues one line (a `\n` is appended; embedded `\n` bytes become spaces, which keeps JSON
    /// valid) — for streaming several lines on one connection. Ignored once the connection closes.
    public func send(_ line: [UInt8]) {
        guard state == .open else { return }
        enqueue(line, isAnswer: false)
    }

    /// Queues one line of a stream (an event) unless the client is too far behind: when the
    /// unsent output would pass `maxStreamBacklog` (or the privileged or total output limits),
    /// `lastLine()` is queued instead, whatever the limits, and the connection closes once it is
    /// flushed or `idleTimeout` passed (reason `.outputOverflow`). Returns whether `line` was
    /// queued. The agent never waits for a slow reader, and holds at most the backlog and one
    /// last line for it.
    @discardableResult
    public func stream(_ line: [UInt8], lastLine: () -> [UInt8]) -> Bool {
        guard state == .open else { return false }
        let size = line.count + 1
        let pending = pendingOutputBytes
        let fitsTotal = isPrivileged || pending == 0 || (server?.totalOutputAllows(size) ?? true)
        guard pending + size <= min(outputBudget, limits.maxStreamBacklog), fitsTotal else {
            forceBuffer(lastLine() + [0x0A])
            beginClosing(.outputOverflow)
            return false
        }
        enqueue(line, isAnswer: false)
        return state == .open
    }

    /// Closes the connection after flushing the pending output (bounded by `idleTimeout`).
    /// Reading stops at once; a request still in progress gets no response.
    public func close() {
        beginClosing(.closedByServer)
    }

    // MARK: - Requests

    /// Called through `Request.respond`.
    func respond(to sequence: UInt64, with bytes: [UInt8]) {
        guard state == .open, outstanding == sequence else { return }
        outstanding = nil
        lastActivity = loop.now
        enqueue(bytes, isAnswer: true)
        guard state == .open else { return }
        if processing { return }  // processInput's loop picks up the next line
        if framer.bufferedCount > 0 || inputClosed {
            scheduleProcessing()
        } else {
            updateInterest()
            armIdleTimer()
        }
    }

    /// Resumes `processInput` in the next loop iteration (a timer due now fires there, after the
    /// other ready descriptors), not in this one.
    private func continueNextTurn() {
        guard !processScheduled else { return }
        processScheduled = true
        loop.schedule(at: loop.now) { [weak self] in
            guard let self else { return }
            self.processScheduled = false
            self.processInput()
        }
    }

    private func scheduleProcessing() {
        guard !processScheduled else { return }
        processScheduled = true
        // Deferred to the end of the iteration so that `respond` never re-enters the handler.
        loop.execute { [weak self] in
            guard let self else { return }
            self.processScheduled = false
            self.processInput()
        }
    }

    /// Requests answered per connection per loop iteration before the loop looks at its other
    /// descriptors again: a client pipelining thousands of requests must not starve child exits,
    /// timers or other clients.
    static let requestsPerTurn = 4

    /// Called by the server when this connection's turn has come.
    func resumeTurn() {
        guard awaitingTurn else { return }
        awaitingTurn = false
        processInput(resumed: true)
    }

    private func processInput(resumed: Bool = false) {
        guard state == .open, !awaitingTurn else { return }
        processing = true
        defer {
            processing = false
            syncInputHeld()
        }
        var delivered = 0
        // While an answer waits for the client to read it, the next request waits too: what a
        // client that pipelines and never reads can make the agent hold is one answer.
        while state == .open, outstanding == nil, pendingOutputBytes == 0 {
            if delivered == Self.requestsPerTurn {
                continueNextTurn()
                return
            }
            guard let frame = heldFrame ?? framer.next() else { break }
            heldFrame = nil
            if case .line = frame, let server, !server.grantTurn(self, resumed: resumed) {
                heldFrame = frame
                awaitingTurn = true
                updateInterest()
                return
            }
            delivered += 1
            switch frame {
            case .tooLong:
                enqueueRefusal(.requestTooLarge(limit: limits.maxRequestBytes))
                beginClosing(.requestTooLarge)
                return
            case .line(let bytes):
                requestCount += 1
                outstanding = requestCount
                lastActivity = loop.now
                server?.deliver(ControlServer.Request(bytes: bytes, connection: self, sequence: requestCount))
            }
        }
        guard state == .open else { return }
        // A stream outlives its client's half-close (`printf '{"command":"subscribe"}\n' | nc -U`):
        // it ends when the client is gone altogether (EPOLLHUP) or a write fails.
        if inputClosed && outstanding == nil && pendingOutputBytes == 0 && heldFrame == nil
            && framer.bufferedCount == 0 && !isStreaming {
            beginClosing(.peerClosed)
            return
        }
        updateInterest()
        armIdleTimer()
    }

    // MARK: - Events

    private func handle(_ events: IOEvents) {
        if events.contains(.error) {
            abort(.failed(errno: socketError()))
            return
        }
        if events.contains(.writable) {
            flush()
            guard state != .closed else { return }
        }
        if events.contains(.readable) && state == .open {
            readAvailable()
            return
        }
        if events.contains(.hangup) && state != .closed {
            // Both directions are gone: nothing more can be read or written.
            abort(.peerClosed)
        }
    }

    /// Reads what has already arrived, without waiting for the loop to report it.
    func readNow() {
        guard state == .open, !awaitingTurn, outstanding == nil, pendingOutputBytes == 0 else { return }
        readAvailable()
    }

    private func readAvailable() {
        guard let server else { return }
        let count = read(fd, server.readBuffer.baseAddress, server.readBuffer.count)
        if count > 0 {
            if !isPrivileged && !server.totalInputAllows(count) {
                enqueueRefusal(.busyReading(limit: limits.maxTotalPendingInput))
                beginClosing(.serverBusy)
                return
            }
            framer.append(UnsafeRawBufferPointer(rebasing: server.readBuffer[0..<count]))
            processInput()
        } else if count == 0 {
            inputClosed = true
            processInput()
        } else {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return }
            abort(code == ECONNRESET ? .peerClosed : .failed(errno: code))
        }
    }

    /// Keeps the server's `pendingInputTotal` in step with what this connection holds.
    private func syncInputHeld() {
        var held = state == .closed ? 0 : framer.bufferedCount
        if state != .closed, case .line(let bytes)? = heldFrame { held += bytes.count }
        guard held != inputHeld else { return }
        server?.pendingInputChanged(by: held - inputHeld)
        inputHeld = held
    }

    // MARK: - Output

    /// Sends what the socket takes now and buffers the rest, within the limits. An answer (the
    /// response to a request) that could not be held in full is replaced by a refusal line; a
    /// streamed line that cannot be held drops the client.
    private func enqueue(_ original: [UInt8], isAnswer: Bool) {
        var line = original.contains(0x0A) ? original.map { $0 == 0x0A ? 0x20 : $0 } : original
        line.append(0x0A)
        if isAnswer && line.count > outputBudget {
            enqueueRefusal(.responseTooLarge(size: line.count, limit: outputBudget,
                                             privilegedLimit: isPrivileged ? nil : limits.maxPrivilegedPendingOutput))
            return
        }
        if isAnswer && !isPrivileged, let server, !server.totalOutputAllows(line.count) {
            enqueueRefusal(.busy(limit: limits.maxTotalPendingOutput))
            beginClosing(.serverBusy)
            return
        }
        let pending = pendingOutputBytes
        let sent = pending == 0 ? sendNow(line) : 0
        guard state != .closed else { return }
        let rest = line.count - sent
        guard rest > 0 else {
            lastActivity = loop.now
            return
        }
        if pending + rest > outputBudget {
            abort(.outputOverflow)
            return
        }
        if !isAnswer && !isPrivileged, let server, !server.totalOutputAllows(rest) {
            abort(.serverBusy)  // a stream that cannot be held is ended; part of the line went out
            return
        }
        buffer(line[sent...])
    }

    /// Unsent bytes this client may have (`maxPendingOutput`, or the privileged one).
    private var outputBudget: Int {
        isPrivileged ? limits.maxPrivilegedPendingOutput : limits.maxPendingOutput
    }

    /// A short refusal line: always buffered, whatever the limits, as the last word to a client.
    private func enqueueRefusal(_ refusal: Refusal) {
        forceBuffer((server?.refusals ?? .standard).line(refusal) + [0x0A])
    }

    /// Sends or buffers a short last line (with its `\n`) whatever the limits.
    private func forceBuffer(_ line: [UInt8]) {
        if pendingOutputBytes == 0 {
            let sent = sendNow(line)
            guard state != .closed, sent < line.count else { return }
            buffer(line[sent...])
        } else {
            buffer(line[...])
        }
    }

    private func buffer(_ bytes: ArraySlice<UInt8>) {
        if outputStart > 0 && outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 16 << 10)
            outputStart = 0
        }
        let wasEmpty = pendingOutputBytes == 0
        output.append(contentsOf: bytes)
        server?.pendingOutputChanged(by: bytes.count)
        if wasEmpty { lastOutputProgress = loop.now }  // the stall clock starts now
        updateInterest()
        armIdleTimer()
    }

    /// Writes as much of `bytes` as the socket takes without blocking; closes on a hard error.
    private func sendNow(_ bytes: [UInt8]) -> Int {
        let written = bytes.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            return cshim_send_nonblocking(fd, base, raw.count)
        }
        if written >= 0 { return written }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK { return 0 }
        abort(code == EPIPE || code == ECONNRESET ? .peerClosed : .failed(errno: code))
        return 0
    }

    private func flush() {
        while outputStart < output.count {
            let written = output.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return cshim_send_nonblocking(fd, base + outputStart, raw.count - outputStart)
            }
            if written > 0 {
                outputStart += written
                server?.pendingOutputChanged(by: -written)
                lastActivity = loop.now  // progress: the client reads
                lastOutputProgress = loop.now
                continue
            }
            let code = errno
            if written < 0 && (code == EAGAIN || code == EWOULDBLOCK) { break }
            abort(code == EPIPE || code == ECONNRESET ? .peerClosed : .failed(errno: code))
            return
        }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 16 << 10)
            outputStart = 0
            if state == .closing {
                finish(closeReason)
                return
            }
            lastActivity = loop.now
            // Requests read while the answer waited are served now.
            if state == .open, outstanding == nil, heldFrame != nil || framer.bufferedCount > 0 || inputClosed {
                scheduleProcessing()
            }
            armIdleTimer()
        } else if outputStart >= 1 << 16 && outputStart * 2 >= output.count {
            output.removeSubrange(0..<outputStart)
            outputStart = 0
        }
        updateInterest()
    }

    // MARK: - Interest and timers

    private func updateInterest() {
        guard state != .closed, let token else { return }
        var wanted: IOEvents = []
        if state == .open && !inputClosed && outstanding == nil && !processScheduled && !awaitingTurn
            && pendingOutputBytes == 0 {
            wanted.insert(.readable)
        }
        if pendingOutputBytes > 0 { wanted.insert(.writable) }
        do {
            try loop.change(token, events: wanted)
        } catch let error as SystemError {
            abort(.failed(errno: error.errno))
        } catch {
            abort(.failed(errno: EIO))
        }
    }

    /// Waiting for the client: for a request (not streaming, nothing in progress) or for it to
    /// read what is pending (always, streaming or not).
    private var isIdleCandidate: Bool {
        guard state == .open else { return false }
        return pendingOutputBytes > 0 || (outstanding == nil && !isStreaming && !awaitingTurn)
    }

    /// Ensures a timer is pending while the connection may go idle. Activity only moves
    /// `lastActivity`; the timer re-arms itself lazily when it fires early, so no timer is touched
    /// per request.
    private func armIdleTimer() {
        guard idleTimer == nil, isIdleCandidate else { return }
        idleTimer = loop.schedule(at: idleDeadline) { [weak self] in
            self?.idleTimerFired()
        }
    }

    /// Waiting for output to be taken runs on the output clock; waiting for a request on the
    /// activity clock.
    private var idleDeadline: MonotonicInstant {
        (pendingOutputBytes > 0 ? lastOutputProgress : lastActivity) + limits.idleTimeout
    }

    private func idleTimerFired() {
        idleTimer = nil
        guard isIdleCandidate else { return }  // re-armed when it becomes a candidate again
        let deadline = idleDeadline
        if loop.now >= deadline {
            abort(pendingOutputBytes > 0 ? .outputStalled : .idleTimeout)
        } else {
            idleTimer = loop.schedule(at: deadline) { [weak self] in
                self?.idleTimerFired()
            }
        }
    }

    // MARK: - Closing

    /// Stops reading; closes once the pending output is flushed or `idleTimeout` passed.
    private func beginClosing(_ reason: CloseReason) {
        guard state == .open else { return }
        state = .closing
        closeReason = reason
        outstanding = nil
        if let idleTimer { loop.cancel(idleTimer) }
        idleTimer = nil
        if pendingOutputBytes == 0 {
            finish(reason)
            return
        }
        lingerTimer = loop.schedule(after: limits.idleTimeout) { [weak self] in
            self?.lingerTimer = nil
            self?.finish(reason)
        }
        updateInterest()
    }

    /// Closes at once, dropping pending output. A connection already closing keeps the reason it
    /// was closing for.
    func abort(_ reason: CloseReason) {
        switch state {
        case .closed: return
        case .closing: finish(closeReason)
        case .open: finish(reason)
        }
    }

    private func finish(_ reason: CloseReason) {
        guard state != .closed else { return }
        state = .closed
        if let token { loop.unwatch(token) }
        token = nil
        if let idleTimer { loop.cancel(idleTimer) }
        if let lingerTimer { loop.cancel(lingerTimer) }
        idleTimer = nil
        lingerTimer = nil
        Glibc.close(fd)
        server?.pendingOutputChanged(by: -pendingOutputBytes)
        syncInputHeld()
        output = []
        outputStart = 0
        let callback = onClose
        onClose = nil
        callback?(reason)
        server?.connectionDidClose(self, reason: reason)
    }

    private func socketError() -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { return errno }
        return code == 0 ? EIO : code
    }
}
