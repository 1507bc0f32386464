// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
@testable import AgentSystem

/// DESIGN §9: the socket cannot be denied to root and group agentd, and no client makes the agent
/// hold more than a fixed amount of unsent output.
@Suite("Control socket limits")
struct SocketLimitTests {
    let limits = ControlServer.Limits(maxClients: 40, maxClientsPerUser: 4, reservedForRoot: 8,
                                      reservedForGroup: 8)

    @Test func oneUserCannotHoldMoreThanItsShareOfConnections() {
        let admission = Admission(limits: limits)
        #expect(admission.refusal(standing: .other, uid: 1000, open: 3, openForUser: 3) == nil)
        let refusal = admission.refusal(standing: .other, uid: 1000, open: 4, openForUser: 4)
        #expect(refusal?.kind == .tooManyForUser)
        #expect(refusal?.message.contains("uid 1000 already has 4 connections") == true)
        #expect(refusal?.message.contains("close some") == true)
        // Group members are held to the same per-user share; root is not.
        #expect(admission.refusal(standing: .group, uid: 1001, open: 4, openForUser: 4)?.kind == .tooManyForUser)
        #expect(admission.refusal(standing: .root, uid: 0, open: 30, openForUser: 30) == nil)
    }

    @Test func slotsAreKeptForRootAndThenForGroupAgentd() {
        let admission = Admission(limits: limits)
        // 24 = 40 - 8 - 8 slots for everybody else.
        #expect(admission.refusal(standing: .other, uid: 1000, open: 23, openForUser: 0) == nil)
        let other = admission.refusal(standing: .other, uid: 1000, open: 24, openForUser: 0)
        #expect(other?.kind == .tooManyClients)
        #expect(other?.message.contains("kept for root and group agentd") == true)
        #expect(admission.refusal(standing: .group, uid: 1001, open: 31, openForUser: 0) == nil)
        let group = admission.refusal(standing: .group, uid: 1001, open: 32, openForUser: 0)
        #expect(group?.message.contains("run agentctl as root") == true)
        #expect(admission.refusal(standing: .root, uid: 0, open: 39, openForUser: 0) == nil)
        #expect(admission.refusal(standing: .root, uid: 0, open: 40, openForUser: 0)?.kind == .tooManyClients)
    }

    @Test func standingComesFromTheCredentials() {
        #expect(Admission.standing(of: PeerCredentials(pid: 1, uid: 0, gid: 0), group: 999) == .root)
        #expect(Admission.standing(of: PeerCredentials(pid: 1, uid: 5, gid: 5, groups: [999]), group: 999, agentUID: 0) == .group)
        #expect(Admission.standing(of: PeerCredentials(pid: 1, uid: 5, gid: 999), group: 999, agentUID: 0) == .group)
        #expect(Admission.standing(of: PeerCredentials(pid: 1, uid: 5, gid: 5), group: 999, agentUID: 0) == .other)
        #expect(Admission.standing(of: PeerCredentials(pid: 1, uid: 5, gid: 5, groups: [999]), group: nil, agentUID: 0) == .other)
        // agentd --user: its own user is the one the slots are kept for.
        #expect(Admission.standing(of: PeerCredentials(pid: 1, uid: 1000, gid: 1000), group: nil, agentUID: 1000) == .root)
    }

    @Test func anAnswerLargerThanTheClientBudgetIsRefusedAndTheConnectionStaysUsable() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("toolarge")
        let server = try ControlServer(loop: loop, path: path, limits: .init(maxPendingOutput: 64 << 10)) { request in
            if request.bytes == Array("big".utf8) {
                request.respond([UInt8](repeating: 0x78, count: 200 << 10))
            } else {
                echo(request)
            }
        }
        server.standing = { _ in .other }
        let client = try LoopClient(loop: loop, path: path)
        client.onLine = { _ in if client.lines.count == 2 { loop.stop() } }
        client.write("big\nsmall\n")
        #expect(runLoop(loop))
        let refusal = try #require(client.lines.first)
        #expect(refusal.hasPrefix(#"{"error":{"code":"unavailable","message":"the answer (204801 bytes) exceeds the 64 KiB"#))
        #expect(refusal.contains("agentctl history pages through long histories with --limit N"))
        // `list` of thousands of jobs has no smaller form: who is sent more, and how to be them.
        #expect(refusal.contains("root and group agentd are sent up to 4 MiB: run it with sudo, or as a member of group agentd"),
                "\(refusal)")
        #expect(client.lines.last == "echo:small")
        #expect(server.pendingOutputTotal == 0)
        server.close()
    }

    @Test func aClientThatNeverReadsItsAnswerIsDroppedAfterTheIdleTimeout() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("stalled")
        let timeout = Duration.milliseconds(300)
        // More than the kernel's socket buffer takes, so some of it waits in the agent.
        let size = 2 << 20
        var answeredAt: MonotonicInstant?
        let server = try ControlServer(loop: loop, path: path,
                                       limits: .init(idleTimeout: timeout, maxPendingOutput: 4 << 20)) { request in
            answeredAt = loop.now  // the clock the connection's stall timer runs on
            request.respond([UInt8](repeating: 0x78, count: size))
        }
        var pendingWhileStalled = 0
        var reason: ClientConnection.CloseReason?
        server.onConnect = { _ in
            // After the answer was queued, well before the timeout.
            loop.schedule(after: .milliseconds(100)) { pendingWhileStalled = server.pendingOutputTotal }
        }
        var closedAt: MonotonicInstant?
        server.onDisconnect = { _, why in
            reason = why
            closedAt = loop.now
            loop.stop()
        }
        let fd = cshim_unix_connect(path)  // never read
        #expect(fd >= 0)
        defer { close(fd) }
        _ = Array("history\n".utf8).withUnsafeBytes { cshim_send_nonblocking(fd, $0.baseAddress, $0.count) }
        #expect(runLoop(loop, limit: .seconds(20)))
        #expect(reason == .outputStalled)
        #expect(pendingWhileStalled > 0)
        #expect(pendingWhileStalled <= 4 << 20)
        let answered = try #require(answeredAt)
        #expect(answered.duration(to: try #require(closedAt)) >= timeout)
        #expect(server.pendingOutputTotal == 0)
        server.close()
    }

    /// Issue 28 item 9: root clients that pipelined requests and never read were never dropped
    /// (each request moved the idle clock) and made the agent hold hundreds of MB. A client's
    /// next request now waits while its answer waits, and the stall clock runs on output taken.
    @Test(.enabled(if: getuid() == 0, "needs root: the client must be privileged"))
    func aRootClientThatPipelinesAndNeverReadsHoldsOneAnswerAndIsDropped() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("pipeline")
        let timeout = Duration.milliseconds(300)
        let size = 1 << 20  // more than the kernel's socket buffer: each answer waits in the agent
        var answered = 0
        let server = try ControlServer(loop: loop, path: path, limits: .init(idleTimeout: timeout)) { request in
            answered += 1
            request.respond([UInt8](repeating: 0x78, count: size))
        }
        var mostPending = 0
        var reason: ClientConnection.CloseReason?
        var privileged = false
        server.onConnect = { connection in privileged = connection.isPrivileged }
        func sample() {
            mostPending = max(mostPending, server.pendingOutputTotal)
            if reason == nil { loop.schedule(after: .milliseconds(10)) { sample() } }
        }
        sample()
        server.onDisconnect = { _, why in
            reason = why
            loop.stop()
        }
        let fd = cshim_unix_connect(path)  // never read
        #expect(fd >= 0)
        defer { close(fd) }
        let requests = Array(String(repeating: "history\n", count: 150).utf8)
        _ = requests.withUnsafeBytes { cshim_send_nonblocking(fd, $0.baseAddress, $0.count) }
        #expect(runLoop(loop, limit: .seconds(20)))
        #expect(privileged, "the test runs as root: the client is privileged")
        #expect(reason == .outputStalled)
        #expect(answered <= 2, "requests wait while an answer waits: \(answered) answered")
        #expect(mostPending <= size, "at most one answer held: \(mostPending) bytes")
        #expect(server.pendingOutputTotal == 0)
        server.close()
    }

    @Test func pastTheTotalOutputBudgetOthersAreToldBusyWhileRootIsStillAnswered() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("busy")
        let server = try ControlServer(loop: loop, path: path,
                                       limits: .init(maxPendingOutput: 2 << 20, maxTotalPendingOutput: 1 << 20)) { request in
            if request.bytes == Array("big".utf8) {
                request.respond([UInt8](repeating: 0x78, count: 900 << 10))
            } else {
                echo(request)
            }
        }
        // The tests run as one user: the first two connections stand for other users, the third for root.
        var accepted = 0
        server.standing = { _ in
            accepted += 1
            return accepted <= 2 ? .other : .root
        }
        // 1: never reads; most of its answer waits in the agent.
        let hog = cshim_unix_connect(path)
        #expect(hog >= 0)
        defer { close(hog) }
        _ = Array("big\n".utf8).withUnsafeBytes { cshim_send_nonblocking(hog, $0.baseAddress, $0.count) }
        var held = 0
        let late = try LoopClient(loop: loop, path: path)
        var root: LoopClient?
        late.onEOF = {
            // 3: root is answered in full, budget or not.
            held = server.pendingOutputTotal
            root = try? LoopClient(loop: loop, path: path)
            root?.onLine = { _ in loop.stop() }
            root?.write("status\n")
        }
        // 2: asks for another big answer once the first is held.
        loop.schedule(after: .milliseconds(200)) { late.write("big\n") }
        #expect(runLoop(loop))
        #expect(held > 512 << 10 && held <= 1 << 20)
        let refusal = try #require(late.lines.first)
        #expect(refusal.hasPrefix(#"{"error":{"code":"unavailable","message":"agentd already holds 1024 KiB of unsent answers"#))
        #expect(root?.lines == ["echo:status"])
        server.close()
    }

    @Test func rootIsAnsweredBeforeAQueueOfExpensiveRequestsFromOthers() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("turns")
        var order: [String] = []
        var root: LoopClient?
        let server = try ControlServer(loop: loop, path: path) { request in
            let text = String(decoding: request.bytes, as: UTF8.self)
            order.append(text)
            if text == "fast" {
                loop.stop()
            } else {
                spin(.milliseconds(30))  // an expensive page: longer than a slice of the loop
                if root == nil {
                    root = try? LoopClient(loop: loop, path: path)
                    root?.write("fast\n")
                }
            }
            echo(request)
        }
        var accepted = 0
        server.standing = { _ in
            accepted += 1
            return accepted <= 10 ? .other : .root
        }
        let others = try (0..<10).map { _ in try LoopClient(loop: loop, path: path) }
        for (index, client) in others.enumerated() { client.write("slow \(index)\n") }
        #expect(runLoop(loop))
        // Without turns all ten would be answered in the iteration that read them, before root.
        let position = try #require(order.firstIndex(of: "fast"))
        #expect(position <= 3, "root's request came after \(position) others: \(order)")
        server.close()
    }

    /// Issue 28 item 9: 200 root connections pipelining `history` kept a new root `status`
    /// waiting for seconds: root's requests bypassed the turns, so one iteration handled them all
    /// before the loop accepted anyone else.
    @Test func aNewRootClientIsAnsweredBeforeManyRootClientsWithExpensiveRequests() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("rootturns")
        var order: [String] = []
        var probe: LoopClient?
        let server = try ControlServer(loop: loop, path: path) { request in
            let text = String(decoding: request.bytes, as: UTF8.self)
            order.append(text)
            if text == "status" {
                loop.stop()
            } else {
                spin(.milliseconds(5))
                if probe == nil {
                    probe = try? LoopClient(loop: loop, path: path)
                    probe?.write("status\n")
                }
            }
            echo(request)
        }
        server.standing = { _ in .root }
        let pipeliners = try (0..<50).map { _ in try LoopClient(loop: loop, path: path) }
        for (index, client) in pipeliners.enumerated() {
            client.write(String(repeating: "history \(index)\n", count: 3))
        }
        #expect(runLoop(loop))
        let position = try #require(order.firstIndex(of: "status"))
        #expect(position <= 6, "the new client's status came after \(position) others: \(order)")
        server.close()
    }

    /// Connections that arrive all the time go first, but never starve those already waiting:
    /// the waiting get at least one request in every iteration.
    @Test func newClientsDoNotStarveWaitingOnes() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("nostarve")
        var newcomers: [LoopClient] = []
        var waitingAnswered = 0
        var newcomersAnsweredBefore = 0
        let server = try ControlServer(loop: loop, path: path) { request in
            let text = String(decoding: request.bytes, as: UTF8.self)
            spin(.milliseconds(4))
            if text == "waiting" {
                waitingAnswered += 1
                if waitingAnswered == 10 { loop.stop() }
            } else {
                newcomersAnsweredBefore += 1
            }
            // Each answer brings a newcomer, as a steady stream of fresh connections would.
            if newcomers.count < 400, let client = try? LoopClient(loop: loop, path: path) {
                client.write("new\n")
                newcomers.append(client)
            }
            echo(request)
        }
        server.standing = { _ in .root }
        let waiting = try (0..<10).map { _ in try LoopClient(loop: loop, path: path) }
        for client in waiting { client.write("waiting\n") }
        #expect(runLoop(loop))
        #expect(waitingAnswered == 10)
        #expect(newcomersAnsweredBefore < 200, "\(newcomersAnsweredBefore) newcomers went first")
        server.close()
    }

    @Test func rootMayReceiveLargerAnswersThanOthers() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("rootlarge")
        let server = try ControlServer(loop: loop, path: path, limits: .init(maxPendingOutput: 64 << 10)) { request in
            request.respond([UInt8](repeating: 0x78, count: 200 << 10))
        }
        let client = try LoopClient(loop: loop, path: path)
        client.onLine = { _ in loop.stop() }
        client.write("list\n")
        #expect(runLoop(loop))
        #expect(client.lines.first?.count == 200 << 10)
        server.close()
    }

    @Test func pastTheTotalInputBudgetOthersAreToldBusy() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("input")
        let server = try ControlServer(loop: loop, path: path, limits: .init(maxTotalPendingInput: 100 << 10), handler: echo)
        server.standing = { _ in .other }
        // Unfinished requests of 40 KiB each: the third does not fit in 100 KiB.
        let partial = [UInt8](repeating: 0x61, count: 40 << 10)
        let clients = try (0..<3).map { _ in try LoopClient(loop: loop, path: path) }
        var refusals = 0
        for (index, client) in clients.enumerated() {
            loop.schedule(after: .milliseconds(50 * (index + 1))) { client.write(partial) }
            client.onEOF = {
                refusals += 1
                loop.stop()
            }
        }
        #expect(runLoop(loop))
        #expect(refusals == 1)
        #expect(clients[2].lines.first?.contains("KiB of unfinished requests from other clients") == true)
        #expect(server.pendingInputTotal == 80 << 10)
        server.close()
    }
}

/// Stands for an expensive request: keeps the loop thread busy for `span`.
private func spin(_ span: Duration) {
    let until = MonotonicInstant.now() + span
    while MonotonicInstant.now() < until {}
}
