// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
@testable import AgentSystem

@Suite("ControlServer")
struct ControlServerTests {
    @Test("several requests on one connection, pipelined and sequential, answered in order; SO_PEERCRED is ours")
    func roundTrip() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("roundtrip")
        var peers: [PeerCredentials] = []
        let server = try ControlServer(loop: loop, path: path) { request in
            peers.append(request.peer)
            echo(request)
        }
        var outcome: ClientOutcome?
        let results = try Mailbox<ClientOutcome>(loop: loop) { batch in
            outcome = batch.first
            loop.stop()
        }
        let sender = results.sender
        let client = TestThread {
            sender.post(ClientOutcome.run { lines in
                let client = try ControlClient.connect(path: path, timeout: .seconds(30))
                for word in ["one", "two", "three"] { try client.send(line: word) }
                for _ in 0..<3 { lines.append(try client.readText()) }
                lines.append(String(decoding: try client.request(Array("four".utf8), timeout: .seconds(30)) ?? [],
                                    as: UTF8.self))
                // An embedded newline cannot split a request into two.
                try client.send(line: "five\nsix")
                lines.append(try client.readText())
            })
        }
        #expect(runLoop(loop))
        client.join()
        let result = try #require(outcome)
        #expect(result.error == nil)
        #expect(result.lines == ["echo:one", "echo:two", "echo:three", "echo:four", "echo:five six"])
        #expect(peers.count == 5)
        for peer in peers {
            #expect(peer.pid == getpid())
            #expect(peer.uid == getuid())
            #expect(peer.gid == getgid())
            #expect(Set(peer.groups) == currentGroups())
            #expect(peer.isMember(ofGroup: getgid()))
        }
        server.close()
    }

    @Test("responses may come later; the next request waits for the previous response")
    func delayedResponsesKeepOrder() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("delayed")
        var inFlight = 0
        var maxInFlight = 0
        var delivered: [String] = []
        let server = try ControlServer(loop: loop, path: path) { request in
            inFlight += 1
            maxInFlight = max(maxInFlight, inFlight)
            delivered.append(String(decoding: request.bytes, as: UTF8.self))
            loop.schedule(after: .milliseconds(15)) {
                inFlight -= 1
                request.respond(Array("r:".utf8) + request.bytes)
                request.respond(Array("duplicate".utf8))  // ignored: one response per request
            }
        }
        let client = try LoopClient(loop: loop, path: path)
        client.onLine = { _ in if client.lines.count == 3 { loop.stop() } }
        client.write("a\nb\nc\n")
        #expect(runLoop(loop))
        #expect(client.lines == ["r:a", "r:b", "r:c"])
        #expect(delivered == ["a", "b", "c"])
        #expect(maxInFlight == 1)
        server.close()
    }

    @Test("a 70 KiB request gets one refusal line, then the connection closes")
    func oversizedRequest() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("oversize")
        var handled = 0
        var reasons: [ClientConnection.CloseReason] = []
        let refusals = ControlServer.Refusals { Array("{\"error\":\"\($0.kind.rawValue)\"}".utf8) }
        let done = Countdown(2, loop: loop)
        let server = try ControlServer(loop: loop, path: path, refusals: refusals) { request in
            handled += 1
            echo(request)
        }
        server.onDisconnect = { _, reason in
            reasons.append(reason)
            done.tick()
        }
        var outcome: ClientOutcome?
        let results = try Mailbox<ClientOutcome>(loop: loop) { batch in
            outcome = batch.first
            done.tick()
        }
        let sender = results.sender
        let client = TestThread {
            sender.post(ClientOutcome.run { lines in
                let client = try ControlClient.connect(path: path, timeout: .seconds(30))
                do {
                    try client.send(line: [UInt8](repeating: 0x61, count: 70 * 1024))
                } catch SocketError.connectionClosed {
                    // The server may close before the tail of our line went out; the refusal is
                    // still waiting in our receive queue.
                }
                lines.append(try client.readText())
                lines.append(try client.readText())
            })
        }
        #expect(runLoop(loop))
        client.join()
        let result = try #require(outcome)
        #expect(result.error == nil)
        #expect(result.lines == ["{\"error\":\"request-too-large\"}", "<EOF>"])
        #expect(reasons == [.requestTooLarge])
        #expect(handled == 0)
        #expect(server.clientCount == 0)
        server.close()
    }

    @Test("idle clients are closed after the idle timeout; activity and streaming postpone it")
    func idleTimeout() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("idle")
        let timeout = Duration.milliseconds(200)
        var streaming: ClientConnection?
        var requestAt: MonotonicInstant?
        var reasons: [UInt64: ClientConnection.CloseReason] = [:]
        let server = try ControlServer(loop: loop, path: path, limits: .init(idleTimeout: timeout)) { request in
            if request.bytes == Array("stream".utf8) {
                request.connection.isStreaming = true
                streaming = request.connection
            } else {
                requestAt = loop.now
            }
            echo(request)
        }
        // Four server-side closes and four client-side EOFs.
        let done = Countdown(8, loop: loop)
        server.onDisconnect = { connection, reason in
            reasons[connection.id] = reason
            done.tick()
        }
        let silent = try LoopClient(loop: loop, path: path)
        let partial = try LoopClient(loop: loop, path: path)
        partial.write("no newline yet")  // bytes without a complete request are not activity
        let active = try LoopClient(loop: loop, path: path)
        loop.schedule(at: active.connectedAt + .milliseconds(50)) { active.write("ping\n") }
        let streamer = try LoopClient(loop: loop, path: path)
        streamer.write("stream\n")
        for client in [silent, partial, active, streamer] { client.onEOF = done.tick }
        // Well past several idle timeouts, the streaming connection is still open; then the
        // server ends the stream itself.
        loop.schedule(at: streamer.connectedAt + timeout * 3) {
            #expect(streaming?.isOpen == true)
            #expect(!streamer.isClosed)
            streaming?.send(Array("last".utf8))
            streaming?.close()
        }
        #expect(runLoop(loop))
        #expect(reasons.count == 4)
        #expect(reasons.values.filter { $0 == .idleTimeout }.count == 3)
        #expect(reasons.values.filter { $0 == .closedByServer }.count == 1)
        // The client sees the close no earlier than the timeout after its last activity.
        for client in [silent, partial] {
            let closedAt = try #require(client.closedAt)
            #expect(client.connectedAt.duration(to: closedAt) >= timeout)
        }
        let activeClosed = try #require(active.closedAt)
        #expect(activeClosed >= (try #require(requestAt)) + timeout)
        #expect(active.lines == ["echo:ping"])
        #expect(streamer.lines == ["echo:stream", "last"])
        server.close()
    }

    @Test("a client that never reads does not block the loop, gets no further answer and is dropped")
    func nonReadingClientIsDropped() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("slow")
        let big = [UInt8](repeating: 0x78, count: 2 << 20)
        var route: (ControlServer.Request) -> Void = echo
        let server = try ControlServer(loop: loop, path: path, limits: .init(idleTimeout: .seconds(2), maxPendingOutput: 3 << 20,
                                                                             maxPrivilegedPendingOutput: 3 << 20)) { request in
            route(request)
        }
        // A raw socket that is never watched or read.
        let badFD = cshim_unix_connect(path)
        #expect(badFD >= 0)
        defer { close(badFD) }
        func badSend(_ text: String) -> Int {
            Array(text.utf8).withUnsafeBytes { cshim_send_nonblocking(badFD, $0.baseAddress, $0.count) }
        }

        var stuck: ClientConnection?
        var stuckPendingDuringGood = 0
        var dropReason: ClientConnection.CloseReason?
        var bigAnswers = 0
        var goodClient: TestThread?
        var goodOutcome: ClientOutcome?
        let results = try Mailbox<ClientOutcome>(loop: loop) { batch in
            goodOutcome = batch.first
            // Phase 2: another request waits behind the unread answer; the client is dropped
            // when it has taken nothing for the idle timeout.
            _ = badSend("big\n")
        }
        let sender = results.sender
        route = { request in
            guard request.bytes == Array("big".utf8) else {
                stuckPendingDuringGood = stuck?.pendingOutputBytes ?? 0
                echo(request)
                return
            }
            stuck = request.connection
            bigAnswers += 1
            request.respond(big)
            // Phase 1: the slow client now has output pending; a good client gets served meanwhile.
            guard goodClient == nil else { return }
            goodClient = TestThread {
                sender.post(ClientOutcome.run { lines in
                    let client = try ControlClient.connect(path: path, timeout: .seconds(30))
                    lines.append(try client.readTextAfterSending("small"))
                })
            }
        }
        server.onDisconnect = { connection, reason in
            guard connection === stuck else { return }
            dropReason = reason
            loop.stop()
        }
        #expect(badSend("big\n") == 4)
        #expect(runLoop(loop))
        goodClient?.join()
        #expect(goodOutcome?.error == nil)
        #expect(goodOutcome?.lines == ["echo:small"])
        #expect(stuckPendingDuringGood > 0)
        #expect(dropReason == .outputStalled)
        #expect(bigAnswers == 1, "the second request waited behind the first answer")
        server.close()
    }

    @Test("100 concurrent clients")
    func hundredConcurrentClients() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("hundred")
        let count = 100
        var maxOpen = 0
        let server = try ControlServer(loop: loop, path: path, handler: echo)
        server.onConnect = { _ in maxOpen = max(maxOpen, server.clientCount) }
        var outcomes: [ClientOutcome] = []
        let results = try Mailbox<ClientOutcome>(loop: loop) { batch in
            outcomes += batch
            if outcomes.count == count { loop.stop() }
        }
        let sender = results.sender
        let barrier = ThreadBarrier(count: count)
        let clients = (0..<count).map { index in
            TestThread {
                var client: ControlClient?
                var outcome = ClientOutcome.run { lines in
                    client = try ControlClient.connect(path: path, timeout: .seconds(60))
                    lines.append(try client?.readTextAfterSending("hello \(index)") ?? "")
                }
                // Every client is connected (or failed) before any continues: all 100 are open at once.
                barrier.wait()
                if outcome.error == nil {
                    let more = ClientOutcome.run { lines in
                        lines.append(try client?.readTextAfterSending("second \(index)") ?? "")
                        lines.append(try client?.readTextAfterSending("third \(index)") ?? "")
                    }
                    outcome.lines += more.lines
                    outcome.error = more.error
                }
                client?.close()
                sender.post(outcome)
            }
        }
        #expect(runLoop(loop, limit: .seconds(60)))
        clients.forEach { $0.join() }
        #expect(outcomes.count == count)
        #expect(outcomes.allSatisfy { $0.error == nil })
        let expected = Set((0..<count).map { ["echo:hello \($0)", "echo:second \($0)", "echo:third \($0)"] })
        #expect(Set(outcomes.map(\.lines)) == expected)
        #expect(maxOpen == count)
        #expect(server.acceptedCount == UInt64(count))
        server.close()
    }

    @Test("clients beyond maxClients get a refusal line and are closed")
    func tooManyClients() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("max")
        let server = try ControlServer(loop: loop, path: path, limits: .init(maxClients: 2), handler: echo)
        server.onConnect = { _ in if server.clientCount == 2 { loop.stop() } }
        let first = try LoopClient(loop: loop, path: path)
        let second = try LoopClient(loop: loop, path: path)
        #expect(runLoop(loop))
        let third = try LoopClient(loop: loop, path: path)
        third.onEOF = { loop.stop() }
        #expect(runLoop(loop))
        #expect(third.lines == [#"{"error":{"code":"unavailable","message":"agentd is serving the 2 connections it allows for this peer; try again in a few seconds"},"ok":false}"#])
        #expect(server.refusedCount == 1)
        #expect(server.clientCount == 2)
        // The admitted ones still work.
        first.onLine = { _ in loop.stop() }
        first.write("still here\n")
        #expect(runLoop(loop))
        #expect(first.lines == ["echo:still here"])
        withExtendedLifetime(second) {}
        server.close()
    }

    @Test("a client that hangs up mid-request is dropped; a late response is ignored")
    func hangupWhileRequestOutstanding() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("hangup")
        var held: ControlServer.Request?
        var client: LoopClient?
        var closeReason: ClientConnection.CloseReason?
        let server = try ControlServer(loop: loop, path: path) { request in
            held = request
            request.connection.onClose = { reason in
                closeReason = reason
                loop.stop()
            }
            client = nil  // closes the client socket while the request is outstanding
        }
        client = try LoopClient(loop: loop, path: path)
        client?.write("hold\n")
        #expect(runLoop(loop))
        #expect(closeReason == .peerClosed)
        #expect(held?.connection.isOpen == false)
        held?.respond(Array("too late".utf8))  // ignored, no crash
        #expect(server.clientCount == 0)
        server.close()
    }

    @Test("a client that half-closes after its request still gets the response, then EOF")
    func halfClose() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("half")
        var reason: ClientConnection.CloseReason?
        let server = try ControlServer(loop: loop, path: path) { request in
            loop.schedule(after: .milliseconds(10)) { echo(request) }
        }
        server.onDisconnect = { _, r in reason = r }
        let client = try LoopClient(loop: loop, path: path)
        client.onEOF = { loop.stop() }
        client.write("ask\n")
        client.shutdownWrite()
        #expect(runLoop(loop))
        #expect(client.lines == ["echo:ask"])
        #expect(reason == .peerClosed)
        server.close()
    }
}

@Suite("ControlServer socket file")
struct ControlServerSocketFileTests {
    @Test("a stale socket file is replaced; the client reports refused before and reaches it after")
    func staleSocketReplaced() throws {
        let path = uniqueSocketPath("stale")
        let stale = cshim_unix_bind(path)
        #expect(stale >= 0)
        close(stale)  // leaves the socket file behind, nobody listening
        #expect(throws: SocketError.connectionRefused(path: path)) {
            _ = try ControlClient.connect(path: path)
        }
        let loop = try EventLoop()
        let server = try ControlServer(loop: loop, path: path, handler: echo)
        let client = try LoopClient(loop: loop, path: path)
        client.onLine = { _ in loop.stop() }
        client.write("hi\n")
        #expect(runLoop(loop))
        #expect(client.lines == ["echo:hi"])
        server.close()
        #expect(access(path, F_OK) != 0)  // removed
    }

    @Test("no socket at the path: the client says so, distinctly")
    func missingSocket() {
        let path = uniqueSocketPath("missing")
        do {
            _ = try ControlClient.connect(path: path)
            Issue.record("connected to nothing")
        } catch let error as SocketError {
            #expect(error == .noSocket(path: path))
            #expect(error.isAgentUnreachable)
            #expect(error.errno == ENOENT)
            #expect(error.description.contains(path))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a regular file in the way is refused and left alone")
    func regularFileRefused() throws {
        let path = uniqueSocketPath("file")
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        close(fd)
        defer { unlink(path) }
        let loop = try EventLoop()
        #expect(throws: SocketError.notASocket(path: path)) {
            _ = try ControlServer(loop: loop, path: path, handler: echo)
        }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
    }

    @Test("a live server is not replaced")
    func liveServerKept() throws {
        let path = uniqueSocketPath("live")
        let loop = try EventLoop()
        let first = try ControlServer(loop: loop, path: path, handler: echo)
        #expect(throws: SocketError.addressInUse(path: path)) {
            _ = try ControlServer(loop: loop, path: path, handler: echo)
        }
        // The first server's socket file survived the attempt.
        let client = try LoopClient(loop: loop, path: path)
        client.onLine = { _ in loop.stop() }
        client.write("still\n")
        #expect(runLoop(loop))
        #expect(client.lines == ["echo:still"])
        first.close()
    }

    @Test("mode and group are applied; close() leaves a socket file that is not ours")
    func modeGroupAndClose() throws {
        let path = uniqueSocketPath("mode")
        let loop = try EventLoop()
        let server = try ControlServer(loop: loop, path: path, mode: 0o600, group: getgid(), handler: echo)
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(info.st_gid == getgid())
        #expect(server.isListening)

        let defaultPath = uniqueSocketPath("mode-default")
        let other = try ControlServer(loop: loop, path: defaultPath, handler: echo)
        #expect(lstat(defaultPath, &info) == 0 && info.st_mode & 0o777 == 0o660)
        other.close()
        #expect(access(defaultPath, F_OK) != 0)

        // Someone replaced our socket file: close() must not remove theirs.
        unlink(path)
        let replacement = cshim_unix_bind(path)
        #expect(replacement >= 0)
        server.close()
        #expect(access(path, F_OK) == 0)
        close(replacement)
        unlink(path)
    }

    @Test("readLine times out when nothing arrives")
    func readTimeout() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("timeout")
        let server = try ControlServer(loop: loop, path: path) { _ in }  // never answers
        let client = try ControlClient.connect(path: path)
        try client.send(line: "anything")
        let start = MonotonicInstant.now()
        #expect(throws: SocketError.timedOut(operation: "read")) {
            _ = try client.readLine(timeout: .milliseconds(50))
        }
        #expect(start.duration(to: .now()) >= .milliseconds(50))
        server.close()
        // After the server closed the connection, the client sees EOF as nil.
        #expect(try client.readLine(timeout: .seconds(30)) == nil)
    }
}

extension ControlClient {
    func readTextAfterSending(_ text: String) throws -> String {
        try send(line: text)
        return try readText()
    }
}
